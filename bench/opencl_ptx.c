/* opencl_ptx: builds OpenCL C files for the first GPU and prints the program binary, which NVIDIA's
 * OpenCL returns as PTX (with no GPU, the first device's binary). bench/h100-sycl.sh uses it to put opencl:bitpacked's code beside
 * sycl:bitpacked's (docs/sycl.md): ptxas and cuobjdump turn both into SASS.
 *   cc -O2 bench/opencl_ptx.c -lOpenCL -o opencl_ptx
 *   opencl_ptx "-DTORUS=1 -DLW=32 ..." a.cl b.cl > out.ptx
 */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>

static char* slurp(const char* path) {
    FILE* f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char* s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) n = 0;
    if (s) s[n] = 0;
    fclose(f);
    return s;
}

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OPTIONS FILE.cl...\n", argv[0]);
        return 2;
    }
    cl_platform_id platforms[8];
    cl_uint np = 0;
    if (clGetPlatformIDs(8, platforms, &np) != CL_SUCCESS || np == 0) {
        fprintf(stderr, "no OpenCL platform\n");
        return 1;
    }
    cl_device_id dev = NULL;
    for (cl_uint p = 0; p < np && !dev; ++p)
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_GPU, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    /* No GPU: the first device of any kind (its binary is no PTX, but the build is checked). */
    for (cl_uint p = 0; p < np && !dev; ++p)
        if (clGetDeviceIDs(platforms[p], CL_DEVICE_TYPE_ALL, 1, &dev, NULL) != CL_SUCCESS) dev = NULL;
    if (!dev) {
        fprintf(stderr, "no OpenCL device\n");
        return 1;
    }
    int nfiles = argc - 2;
    const char** sources = malloc(sizeof(char*) * (size_t)nfiles);
    for (int i = 0; i < nfiles; ++i)
        if (!(sources[i] = slurp(argv[i + 2]))) {
            fprintf(stderr, "cannot read %s\n", argv[i + 2]);
            return 1;
        }
    cl_int err;
    cl_context ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    cl_program prog = clCreateProgramWithSource(ctx, (cl_uint)nfiles, sources, NULL, &err);
    err = clBuildProgram(prog, 1, &dev, argv[1], NULL, NULL);
    size_t logn = 0;
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &logn);
    char* log = malloc(logn + 1);
    clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, logn, log, NULL);
    log[logn] = 0;
    fprintf(stderr, "build log:\n%s\n", log);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "build failed: %d\n", err);
        return 1;
    }
    size_t size = 0;
    clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL);
    unsigned char* bin = malloc(size);
    clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL);
    /* NVIDIA's PTX ends in NUL bytes, which ptxas refuses. */
    while (size > 0 && bin[size - 1] == 0) --size;
    fwrite(bin, 1, size, stdout);
    return 0;
}
