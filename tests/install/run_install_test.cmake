# cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK_DIR=... -DCXX=... -DGENERATOR=... -DLIBDIR=...
#       -DPKG_CONFIG=... [-DPYTHON=... -DPYTHON_DIR=...] [-DHAVE_PNG=ON] -P run_install_test.cmake
#
# Installs the build into WORK_DIR/prefix, then builds tests/install/consumer.cpp against the
# installed package with find_package(tilelife) and with pkg-config, runs both on a glider, and
# checks what a consumer is given: the installed headers only, C++20, no OpenCL or OpenMP flags.
# Then imports the installed Python module and runs the installed CLI (and its image module).

function(run)
  cmake_parse_arguments(R "" "OUT;WHAT" "" ${ARGN})
  execute_process(COMMAND ${R_UNPARSED_ARGUMENTS} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${R_WHAT} failed (${rc}):\n${R_UNPARSED_ARGUMENTS}\n${out}\n${err}")
  endif()
  if(R_OUT)
    set(${R_OUT} "${out}" PARENT_SCOPE)
  endif()
endfunction()

function(expect_equal what got want)
  if(NOT got STREQUAL want)
    message(FATAL_ERROR "${what}: got\n${got}\nwanted\n${want}")
  endif()
  message(STATUS "ok: ${what}")
endfunction()

set(prefix ${WORK_DIR}/prefix)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${WORK_DIR})
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix} WHAT "cmake --install")

# The man page and completions the build wrote from the CLI's definitions (src/cli/cli_docs.cpp).
foreach(doc share/man/man1/tilelife.1 share/bash-completion/completions/tilelife share/zsh/site-functions/_tilelife)
  if(NOT EXISTS ${prefix}/${doc})
    message(FATAL_ERROR "cmake --install did not install ${doc}")
  endif()
endforeach()

# What the glider (patterns/glider.rle) is after 4 generations: the same shape, one cell down-right.
set(glider ${SOURCE_DIR}/patterns/glider.rle)
string(CONCAT expected
  "engine cpu:bitpacked\n"
  "generation 4 population 5\n"
  "cell 2 1\n" "cell 3 2\n" "cell 1 3\n" "cell 2 3\n" "cell 3 3\n"
  "error bad rule 'B9/S23': neighbour count 9 is impossible (at most 8 neighbours)\n")

# find_package(tilelife), from the prefix only.
set(cbuild ${WORK_DIR}/cmake-consumer)
run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/consumer -B ${cbuild} -G ${GENERATOR}
    -DCMAKE_CXX_COMPILER=${CXX} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -DCMAKE_EXPORT_COMPILE_COMMANDS=ON
    OUT configure_out WHAT "configuring the find_package consumer")
if(NOT configure_out MATCHES "tilelife_DIR=${prefix}/")
  message(FATAL_ERROR "find_package(tilelife) did not find the package in ${prefix}:\n${configure_out}")
endif()
run(${CMAKE_COMMAND} --build ${cbuild} WHAT "building the find_package consumer")
run(${cbuild}/consumer ${glider} OUT got WHAT "the find_package consumer")
expect_equal("find_package consumer output" "${got}" "${expected}")

# A consumer is given the installed headers and C++20, and nothing of the library's insides.
file(READ ${cbuild}/compile_commands.json commands)
string(REGEX MATCH "\"command\": \"[^\"]*consumer\\.cpp[^\"]*\"" command "${commands}")
if(NOT command MATCHES "-I${prefix}/include" AND NOT command MATCHES "-isystem ${prefix}/include")
  message(FATAL_ERROR "the consumer is not compiled against ${prefix}/include: ${command}")
endif()
if(NOT command MATCHES "-std=(c|gnu)\\+\\+20")
  message(FATAL_ERROR "tilelife::tilelife does not ask for C++20: ${command}")
endif()
foreach(leak "CL_HPP" "OpenCL" "opencl" "TILELIFE_HAVE" "openmp" "${SOURCE_DIR}/include" "${SOURCE_DIR}/src")
  string(FIND "${command}" "${leak}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "the consumer's compile command carries '${leak}': ${command}")
  endif()
endforeach()
message(STATUS "ok: the consumer's compile command has only the installed headers and C++20")

# pkg-config, from the prefix's .pc file.
if(PKG_CONFIG)
  set(ENV{PKG_CONFIG_PATH} ${prefix}/${LIBDIR}/pkgconfig)
  set(ENV{PKG_CONFIG_LIBDIR} ${prefix}/${LIBDIR}/pkgconfig)
  run(${PKG_CONFIG} --cflags --libs tilelife OUT flags WHAT "pkg-config --cflags --libs tilelife")
  run(${PKG_CONFIG} --variable=libdir tilelife OUT libdir WHAT "pkg-config --variable=libdir tilelife")
  string(STRIP "${flags}" flags)
  string(STRIP "${libdir}" libdir)
  file(REAL_PATH "${libdir}" libdir)
  file(REAL_PATH "${prefix}/${LIBDIR}" want_libdir)
  expect_equal("pkg-config libdir" "${libdir}" "${want_libdir}")
  separate_arguments(flags UNIX_COMMAND "${flags}")
  run(${CXX} -std=c++20 ${SOURCE_DIR}/tests/install/consumer.cpp ${flags} -Wl,-rpath,${libdir}
      -o ${WORK_DIR}/pc-consumer WHAT "building the pkg-config consumer")
  run(${WORK_DIR}/pc-consumer ${glider} OUT got WHAT "the pkg-config consumer")
  expect_equal("pkg-config consumer output" "${got}" "${expected}")
else()
  message(FATAL_ERROR "pkg-config not found (install pkg-config)")
endif()

# The installed Python module (when this build has one): imported from the prefix, same glider.
if(PYTHON)
  set(ENV{PYTHONPATH} ${prefix}/${PYTHON_DIR})
  run(${PYTHON} -c [=[
import sys, tilelife
b = tilelife.load(sys.argv[1], topology="torus", size=(32, 32))
b.step(4)
print(tilelife.__file__)
print(b.engine, b.generation, b.population, b.cells().tolist())
]=] ${glider} OUT got WHAT "importing the installed Python module")
  # The Board centres the glider as Golly does (top-left at 16 - 3/2 = 15), then it moves by (1, 1).
  expect_equal("installed Python module"
    "${got}" "${prefix}/${PYTHON_DIR}/tilelife/__init__.py\ncpu:bitpacked 4 5 [[17, 16], [18, 17], [16, 18], [17, 18], [18, 18]]\n")
endif()

# The installed CLI runs.
run(${prefix}/bin/tilelife run ${glider} --gens 4 -o ${WORK_DIR}/glider-4.rle --quiet WHAT "the installed CLI")
file(READ ${WORK_DIR}/glider-4.rle got)
# The CLI keeps the pattern's name and comments (#N, #C lines, compared apart).
string(REGEX MATCHALL "#[NOC] [^\n]*\n" meta "${got}")
string(REGEX REPLACE "#[NOC] [^\n]*\n" "" got "${got}")
string(REPLACE ";" "" meta "${meta}")
expect_equal("installed CLI output's name and comments" "${meta}"
  "#N Glider\n#C The smallest spaceship: moves one cell diagonally every 4 generations.\n")
expect_equal("installed CLI output" "${got}" "#CXRLE Pos=1,1 Gen=4\nx = 3, y = 3, rule = B3/S23\nbo$2bo$3o!\n")

# The installed CLI finds its modules (<libdir>/tilelife, relative to bin/): a PNG needs the image module.
if(HAVE_PNG)
  run(${prefix}/bin/tilelife run ${glider} --gens 4 -o ${WORK_DIR}/glider-4.png --quiet WHAT "the installed CLI's PNG output")
  file(READ ${WORK_DIR}/glider-4.png magic LIMIT 4 HEX)
  expect_equal("installed CLI's PNG (its image module from ${prefix}/${LIBDIR}/tilelife)" "${magic}" "89504e47")
endif()
