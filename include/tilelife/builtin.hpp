// Registers every engine family this build contains (cpu:*, and opencl:* when OpenCL was found).
// Call once before create_engine(); calling again does nothing.
#pragma once

namespace tilelife {
void register_builtin_engines();
}
