// Synthesised SDL key events for the viewer's tests, in the order SDL reports them, handed to a
// callable (the session's handle()). Shared by the viewer's event tests and the viewer-on-hashlife
// tests.
#pragma once

#include <SDL.h>

#include <cctype>
#include <cstring>

namespace tilelife::viewer::keys {

// A key that types nothing (Return, arrows, Ctrl+letter...), down then up.
template <class Send>
void press(Send&& send, SDL_Keycode sym, Uint16 mod = KMOD_NONE) {
    SDL_SetModState(static_cast<SDL_Keymod>(mod));
    SDL_Event e{};
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = sym;
    e.key.keysym.mod = mod;
    send(e);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    send(e);
    SDL_SetModState(KMOD_NONE);
}

// A key that types character c: the key down (with Shift for capitals and shifted symbols), the
// text, the key up.
template <class Send>
void type(Send&& send, char c) {
    const bool shifted = std::isupper(static_cast<unsigned char>(c)) || std::strchr("<>?+_", c) != nullptr;
    const Uint16 mod = shifted ? KMOD_LSHIFT : KMOD_NONE;
    SDL_SetModState(static_cast<SDL_Keymod>(mod));
    SDL_Event e{};
    e.type = SDL_KEYDOWN;
    e.key.state = SDL_PRESSED;
    e.key.keysym.sym = std::tolower(static_cast<unsigned char>(c));
    e.key.keysym.mod = mod;
    send(e);
    SDL_Event t{};
    t.type = SDL_TEXTINPUT;
    t.text.text[0] = c;
    send(t);
    e.type = SDL_KEYUP;
    e.key.state = SDL_RELEASED;
    send(e);
    SDL_SetModState(KMOD_NONE);
}

}  // namespace tilelife::viewer::keys
