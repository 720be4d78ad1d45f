#!/usr/bin/env python3
"""Docs that run: executes every `build/tilelife ...` command in the code blocks of README.md and
docs/*.md and fails on a non-zero exit or a stale output claim.

    run_doc_commands.py --cli build/tilelife --source .         every command of the docs
    run_doc_commands.py --cli build/tilelife --source . --self-test

What runs: in fenced (``` with no language, sh, bash, shell or console) and indented code blocks, a
line (joined over trailing backslashes) whose command, or one of whose pipeline / && / ; parts,
starts with build/tilelife (or ./build/tilelife, or runs it through a wrapper such as xvfb-run).
Commands of one document run in order, with bash -o pipefail, in one temporary directory holding a
copy of patterns/, an empty docs/images/ and build/tilelife (a link to the binary under test), so
that a document's later commands find what its earlier ones wrote and the repository is untouched.

What a document can claim, and what is checked:
  * a trailing comment that says `exit N` (e.g. `# exit 2: refused`): the command must exit N;
    any other command must exit 0;
  * a command written after a `$ ` prompt in a fenced block: the lines after it, up to the next
    prompt or blank line, are its output; each must appear in what the command printed (stdout and
    stderr), compared with runs of spaces collapsed; `...` in a shown line matches anything.

Long commands are made small by SUBSTITUTIONS below (each entry says why; an entry that matches no
command, or an edit that no longer applies, fails the test so that the table stays reviewed).
Commands that need something this machine or build lacks are skipped with the reason, found by
probing (PROBES), never by ignoring a failure.
"""
import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

TIMEOUT_S = 180

# (document, a substring that picks the command, [(old, new), ...], why). The old text must be in the
# command. Commands that take a few seconds on a CPU (PoCL for OpenCL) run as written: the whole table
# ran in about a minute on 2 cores.
SUBSTITUTIONS = [
    ("README.md", "bench --backend opencl --kernel naive,halo-tile,halo-tile-strided --size 4096x4096",
     [("--size 4096x4096", "--size 256x256"), ("--gens 200", "--gens 4")],
     "34 s on PoCL (2 cores, 2026-11-27)"),
    ("README.md", "bench --backend opencl --autotune",
     [("--autotune", "--autotune --size 128x128 --gens 2")],
     "every option set of every OpenCL engine at bench's default size: 14 s on PoCL (2 cores, 2026-11-27)"),
    ("README.md", "bench --backend sycl --kernel hierarchical,halo-tile,halo-tile-strided,bitpacked",
     [("bitpacked", "bitpacked --size 256x256 --gens 4")],
     "bench's default size, four kernels, on a CPU SYCL device (not measured here: no SYCL compiler)"),
]

# Rules for a kind of command, each with its reason (also reviewed).
def generic_edits(cmd):
    """Returns (command, [reasons]) after the rules that apply to every document."""
    why = []
    # An interactive window never ends: a `view` without --frames runs 2 frames headless.
    if re.search(r"build/tilelife\s+view\s", cmd) and "--frames" not in cmd:
        cmd = re.sub(r"(build/tilelife\s+view)(\s)", r"\1 --frames 2\2", cmd, count=1)
        why.append("view runs --frames 2 (an interactive window never ends)")
    return cmd, why


WRAPPERS = {"xvfb-run", "mpirun", "mpiexec", "env", "timeout", "time", "nice", "valgrind"}
SHELL_LANGS = {"", "sh", "bash", "shell", "console"}


def strip_comment(line):
    """The line without an unquoted trailing `# ...` comment, and the comment's text."""
    quote = None
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
            elif ch == "\\" and quote == '"':
                pass
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1].isspace()):
            return line[:i].rstrip(), line[i + 1:].strip()
    return line.rstrip(), ""


def runs_tilelife(cmd):
    try:
        lex = shlex.shlex(cmd, posix=True, punctuation_chars=True)
        lex.whitespace_split = True
        tokens = list(lex)
    except ValueError:
        return False
    segments, cur = [], []
    for t in tokens:
        if t in ("|", "||", "&&", ";", "&", "(", ")"):
            segments.append(cur)
            cur = []
        else:
            cur.append(t)
    segments.append(cur)
    for seg in segments:
        words = [w for w in seg if not re.match(r"^[A-Za-z_][A-Za-z0-9_]*=", w)]
        if not words:
            continue
        if words[0] in ("build/tilelife", "./build/tilelife"):
            return True
        if words[0] in WRAPPERS and any(w in ("build/tilelife", "./build/tilelife") for w in words):
            return True
    return False


class Command:
    def __init__(self, doc, line, text, comment, shown=None):
        self.doc, self.line, self.text, self.comment = doc, line, text, comment
        self.shown = shown or []  # output lines the document shows after a `$ ` prompt
        m = re.search(r"\bexits? (?:with )?(\d+)\b", comment)
        self.expect_rc = int(m.group(1)) if m else 0


def code_lines(path):
    """(line number, text, fenced, prompt-block) for each line of a shell code block."""
    out = []
    fence = None
    prev_blank = True
    in_indented = False
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    for n, raw in enumerate(lines, 1):
        stripped = raw.strip()
        m = re.match(r"^\s*(```|~~~)\s*([A-Za-z0-9_+-]*)", raw)
        if fence is None and m:
            fence = (m.group(1), m.group(2).lower())
            in_indented = False
            continue
        if fence is not None:
            if stripped.startswith(fence[0]):
                fence = None
                prev_blank = False
                continue
            if fence[1] in SHELL_LANGS:
                out.append((n, raw, True))
            continue
        if (raw.startswith("    ") or raw.startswith("\t")) and (prev_blank or in_indented):
            in_indented = True
            out.append((n, raw.strip(), False))
        elif stripped:
            in_indented = False
        prev_blank = not stripped
    return out


def parse_commands(path, doc):
    cmds = []
    items = code_lines(path)
    i = 0
    while i < len(items):
        n, raw, fenced = items[i]
        text = raw.strip()
        prompt = fenced and text.startswith("$ ")
        if prompt:
            text = text[2:]
        start = n
        while text.endswith("\\") and i + 1 < len(items) and items[i + 1][0] == items[i][0] + 1:
            i += 1
            text = text[:-1].rstrip() + " " + items[i][1].strip()
        i += 1
        body, comment = strip_comment(text)
        if not body or not runs_tilelife(body):
            continue
        shown = []
        if prompt:  # the output the document shows, up to the next prompt or blank line
            while i < len(items) and items[i][0] == items[i - 1][0] + 1:
                t = items[i][1].rstrip()
                if not t.strip() or t.strip().startswith("$ "):
                    break
                shown.append(t.strip())
                i += 1
        cmds.append(Command(doc, start, body, comment, shown))
    return cmds


def normalise(s):
    return re.sub(r"\s+", " ", s).strip()


def shown_line_found(shown, output):
    pattern = ".*?".join(re.escape(part) for part in normalise(shown).split("..."))
    return any(re.search(pattern, normalise(l)) for l in output.splitlines()) or \
        re.search(pattern, normalise(output)) is not None


class Probes:
    """What this build and machine can run, each with the reason when it cannot."""

    def __init__(self, cli, workdir, env):
        self.cli, self.workdir, self.env = cli, workdir, env
        self.cache = {}

    def _run(self, args, env=None):
        try:
            p = subprocess.run([self.cli] + args, cwd=self.workdir, env=env or self.env, capture_output=True,
                               text=True, timeout=120)
            return p.returncode, p.stdout + p.stderr
        except subprocess.TimeoutExpired:
            return -1, "timed out"

    def engines(self):
        if "engines" not in self.cache:
            rc, out = self._run(["engines"])
            if rc != 0:
                raise SystemExit(f"probe `tilelife engines` failed (exit {rc}):\n{out}")
            self.cache["engines"] = out
        return self.cache["engines"]

    def backend(self, name):
        """None when `--backend name` runs here, else why not."""
        key = "backend:" + name
        if key not in self.cache:
            if not re.search(r"\b" + name + r":", self.engines()):
                self.cache[key] = f"this build has no {name} engines (`tilelife engines` lists no {name}:*)"
            else:
                rc, out = self._run(["run", "random:16x16", "--topology", "torus", "--gens", "1", "--backend", name])
                self.cache[key] = None if rc == 0 else \
                    f"no usable {name} device (`tilelife run random:16x16 ... --backend {name}`: exit {rc}: " \
                    f"{out.strip().splitlines()[-1] if out.strip() else ''})"
        return self.cache[key]

    def engines_have(self, backend):
        return re.search(r"\b" + backend + r":", self.engines()) is not None

    def viewer(self):
        if "viewer" not in self.cache:
            rc, out = self._run(["view", "random:16x16", "-t", "torus", "--frames", "1"], env=view_env(self.env))
            self.cache["viewer"] = None if rc == 0 else \
                f"no viewer here (`tilelife view ... --frames 1`: exit {rc}: {out.strip().splitlines()[-1] if out.strip() else ''})"
        return self.cache["viewer"]


def view_env(env):
    """Headless views (--frames) run on SDL's offscreen driver when there is no display."""
    env = dict(env)
    if not env.get("DISPLAY") and not env.get("WAYLAND_DISPLAY"):
        env.setdefault("SDL_VIDEODRIVER", "offscreen")
    return env


def skip_reason(cmd, probes):
    """(why the command cannot run here, or None; the backend whose absence is the reason, or None)."""
    words = shlex.split(cmd, comments=False)
    for tool in ("xvfb-run", "mpirun", "mpiexec", "valgrind"):
        if tool in words and shutil.which(tool) is None:
            return f"needs {tool}, which is not installed", None
    if ("mpirun" in words or "mpiexec" in words) and "mpi:" not in probes.engines():
        return "this build has no MPI engine (`tilelife engines` lists no mpi:*)", None
    for w in words:
        if w.startswith("/") and not os.path.exists(w) and not w.startswith("/tmp"):
            return f"needs {w}, which is not on this machine", None
    for backend in ("opencl", "sycl", "cuda"):
        if re.search(r"--backend[ =]" + backend + r"\b|\b" + backend + r":[a-z]", cmd):
            why = probes.backend(backend)
            if why:
                return why, backend
    if re.search(r"build/tilelife\s+view\s", cmd):
        why = probes.viewer()
        if why:
            return why, None
    return None, None


USAGE_ERROR = re.compile(r"not expected|not recognized|unrecognized|unknown option|--help\)", re.I)


def stops_at_missing_backend(rc, out, backend):
    """A command skipped for a backend this build lacks still runs up to that point: its only error
    names the backend (so a removed flag or a typo is caught on builds without SYCL too)."""
    last = out.strip().splitlines()[-1] if out.strip() else ""
    return rc != 0 and backend in last and not USAGE_ERROR.search(out)


def run_command(text, cwd, env):
    try:
        p = subprocess.run(["bash", "-o", "pipefail", "-c", text], cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=TIMEOUT_S)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired:
        return None, f"(timed out after {TIMEOUT_S} s)"


def tail_of(out):
    return "\n".join("       | " + l for l in out.strip().splitlines()[-15:])


def apply_substitutions(cmds, failures):
    used = [False] * len(SUBSTITUTIONS)
    for c in cmds:
        c.notes = []
        for k, (doc, key, edits, why) in enumerate(SUBSTITUTIONS):
            if doc != c.doc or key not in c.text:
                continue
            used[k] = True
            for old, new in edits:
                if old not in c.text:
                    failures.append(f"{c.doc}:{c.line}: substitution '{old}' -> '{new}' ({why}) no longer applies "
                                    f"to: {c.text}")
                    continue
                c.text = c.text.replace(old, new, 1)
            c.notes.append(why)
        c.text, why = generic_edits(c.text)
        c.notes += why
    for k, u in enumerate(used):
        if not u:
            doc, key, _, why = SUBSTITUTIONS[k]
            failures.append(f"substitution table: no command of {doc} contains '{key}' ({why}); update the table")


def prepare_workdir(root, source, cli):
    shutil.copytree(os.path.join(source, "patterns"), os.path.join(root, "patterns"))
    os.makedirs(os.path.join(root, "docs", "images"))
    os.makedirs(os.path.join(root, "build"))
    os.symlink(os.path.abspath(cli), os.path.join(root, "build", "tilelife"))


def run_docs(cli, source, docs, verbose=True):
    """Runs the commands of `docs` (paths relative to source); returns (ran, skipped, failures)."""
    failures, ran, skipped = [], 0, 0
    env = dict(os.environ)
    env.pop("TILELIFE_PROGRESS", None)
    all_cmds = []
    for doc in docs:
        all_cmds += parse_commands(os.path.join(source, doc), doc)
    apply_substitutions(all_cmds, failures)
    with tempfile.TemporaryDirectory(prefix="tilelife-docs-") as top:
        probe_dir = os.path.join(top, "probe")
        os.makedirs(probe_dir)
        prepare_workdir(probe_dir, source, cli)
        probes = Probes(os.path.join(probe_dir, "build", "tilelife"), probe_dir, env)
        for doc in docs:
            work = os.path.join(top, re.sub(r"[^A-Za-z0-9]", "_", doc))
            os.makedirs(work)
            prepare_workdir(work, source, cli)
            for c in (c for c in all_cmds if c.doc == doc):
                where = f"{c.doc}:{c.line}"
                why, backend = skip_reason(c.text, probes)
                if why and backend and not probes.engines_have(backend):
                    rc, out = run_command(c.text, work, env)
                    if not stops_at_missing_backend(rc, out, backend):
                        failures.append(f"{where}: {c.text}\n     skipped ({why}), but it fails before it needs "
                                        f"{backend} (exit {rc}):\n" + tail_of(out))
                        print(f"FAIL {where}: {c.text}")
                        continue
                if why:
                    skipped += 1
                    print(f"SKIP {where}: {c.text}\n     reason: {why}")
                    continue
                viewing = re.search(r"build/tilelife\s+view\s", c.text) and "xvfb-run" not in c.text
                run_env = view_env(env) if viewing else env
                rc, out = run_command(c.text, work, run_env)
                ran += 1
                problems = []
                if rc != c.expect_rc:
                    problems.append(f"exit {rc}, the document expects {c.expect_rc}")
                for s in c.shown:
                    if not shown_line_found(s, out):
                        problems.append(f"shown output not printed: '{s}'")
                note = f"   [{'; '.join(c.notes)}]" if c.notes else ""
                if problems:
                    failures.append(f"{where}: {c.text}\n     " + "\n     ".join(problems) + "\n" + tail_of(out))
                    print(f"FAIL {where}: {c.text}{note}")
                elif verbose:
                    print(f"ok   {where}: {c.text}{note}")
    return ran, skipped, failures


SELF_TEST_DOC = """# A document with one good and two broken commands

```sh
build/tilelife run patterns/glider.rle --gens 4 -o g.rle
build/tilelife run patterns/glider.rle --gens 4 --no-such-flag
build/tilelife run patterns/glider.rle --gens 1.5e3     # exit 2: not a whole number
```

```console
$ build/tilelife info g.rle
a line that info never prints
```
"""


def self_test(cli, source):
    """The runner must pass the good commands and catch the broken ones."""
    with tempfile.TemporaryDirectory(prefix="tilelife-docs-self-") as d:
        os.makedirs(os.path.join(d, "docs"))
        shutil.copytree(os.path.join(source, "patterns"), os.path.join(d, "patterns"))
        with open(os.path.join(d, "docs", "broken.md"), "w") as f:
            f.write(SELF_TEST_DOC)
        global SUBSTITUTIONS
        saved, SUBSTITUTIONS = SUBSTITUTIONS, []
        try:
            ran, skipped, failures = run_docs(cli, d, ["docs/broken.md"], verbose=True)
        finally:
            SUBSTITUTIONS = saved
    text = "\n".join(failures)
    ok = ran == 4 and len(failures) == 2 and "--no-such-flag" in text and "a line that info never prints" in text
    print("\n".join(failures))
    print("self-test:", "the runner caught both broken lines" if ok else f"WRONG (ran {ran}, {len(failures)} failures)")
    return 0 if ok else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", required=True, help="the tilelife binary")
    ap.add_argument("--source", required=True, help="the source tree (README.md, docs/, patterns/)")
    ap.add_argument("--self-test", action="store_true", help="check that the runner catches broken lines")
    ap.add_argument("docs", nargs="*", help="documents relative to --source (default README.md and docs/*.md)")
    a = ap.parse_args()
    if a.self_test:
        return self_test(a.cli, a.source)
    docs = a.docs or ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(a.source, "docs"))
                                             if f.endswith(".md"))
    ran, skipped, failures = run_docs(a.cli, a.source, docs)
    print(f"\n{ran} commands ran, {skipped} skipped, {len(failures)} failed")
    for f in failures:
        print("\nFAILED " + f)
    if ran == 0:
        print("no command ran: the parser found nothing")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
