# The installed package (`cmake --install`): libtilelife.so, the public headers, the CLI,
# tilelifeConfig.cmake (target tilelife::tilelife) and tilelife.pc. docs/api.md says how to use it.
#
# The library is installed as ONE shared library made of every part the `tilelife` umbrella links.
# Its own dependencies (OpenMP, OpenCL, zlib, and whatever later parts bring) stay private to it, so
# a consumer needs only the headers and -ltilelife: no OpenCL headers, no find_dependency() for a
# part's libraries, nothing to change here when a part is added. In this tree the CLI and the tests
# keep linking the static parts (no start-up cost, no RPATH); docs/api.md has the measurements.
include(CMakePackageConfigHelpers)

# The in-project static libraries `target` is made of: itself and every one it links, recursively.
function(tilelife_static_parts target out)
  set(parts "")
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue t)
    if(NOT TARGET "${t}" OR "${t}" IN_LIST parts)
      continue()
    endif()
    get_target_property(imported ${t} IMPORTED)
    get_target_property(type ${t} TYPE)
    if(imported OR NOT type STREQUAL "STATIC_LIBRARY")
      continue()
    endif()
    list(APPEND parts ${t})
    get_target_property(links ${t} LINK_LIBRARIES)
    if(links)
      list(APPEND queue ${links})
    endif()
  endwhile()
  set(${out} ${parts} PARENT_SCOPE)
endfunction()

tilelife_static_parts(tilelife TILELIFE_LIBRARY_PARTS)
add_library(tilelife_shared SHARED)
foreach(part IN LISTS TILELIFE_LIBRARY_PARTS)
  target_sources(tilelife_shared PRIVATE $<TARGET_OBJECTS:${part}>)
endforeach()
# The parts' objects are all listed above; linking the umbrella adds only their dependencies.
target_link_libraries(tilelife_shared PRIVATE tilelife)
target_include_directories(tilelife_shared INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include> $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_compile_features(tilelife_shared INTERFACE cxx_std_20)
# Only the tilelife namespace is exported (tilelife.map): the OpenCL C++ bindings and template
# instantiations inside cannot clash with a consumer's own.
target_link_options(tilelife_shared PRIVATE -Wl,--no-undefined -Wl,--version-script=${CMAKE_CURRENT_LIST_DIR}/tilelife.map)
set_target_properties(tilelife_shared PROPERTIES
  OUTPUT_NAME tilelife
  EXPORT_NAME tilelife
  VERSION ${PROJECT_VERSION}
  SOVERSION ${PROJECT_VERSION_MAJOR}.${PROJECT_VERSION_MINOR}
  LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/lib
  LINK_DEPENDS ${CMAKE_CURRENT_LIST_DIR}/tilelife.map)
add_library(tilelife::tilelife ALIAS tilelife_shared)
string(REPLACE ";" ", " _parts "${TILELIFE_LIBRARY_PARTS}")
message(STATUS "tilelife: libtilelife.so (installed library) is made of ${_parts}")

install(TARGETS tilelife_shared EXPORT tilelifeTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/tilelife DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.hpp")
set(TILELIFE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/tilelife)
install(EXPORT tilelifeTargets NAMESPACE tilelife:: DESTINATION ${TILELIFE_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/tilelifeConfig.cmake.in
  ${PROJECT_BINARY_DIR}/package/tilelifeConfig.cmake INSTALL_DESTINATION ${TILELIFE_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/package/tilelifeConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/package/tilelifeConfig.cmake ${PROJECT_BINARY_DIR}/package/tilelifeConfigVersion.cmake
  DESTINATION ${TILELIFE_CMAKE_DIR})

# pkg-config: the prefix is found from the .pc file's own place, so `cmake --install --prefix DIR`
# anywhere gives a working file.
file(RELATIVE_PATH TILELIFE_PC_PREFIX "/prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/prefix")
string(REGEX REPLACE "/$" "" TILELIFE_PC_PREFIX "${TILELIFE_PC_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/tilelife.pc.in ${PROJECT_BINARY_DIR}/package/tilelife.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/package/tilelife.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# tests/install: installs this build into a temporary prefix and builds programs against it.
# Not in sanitizer builds: programs linked against an instrumented libtilelife.so need the
# sanitizer runtimes loaded first, which a plain consumer build does not arrange.
if(TILELIFE_TESTS AND NOT CMAKE_CXX_FLAGS MATCHES "-fsanitize=")
  enable_testing()
  add_subdirectory(${PROJECT_SOURCE_DIR}/tests/install ${PROJECT_BINARY_DIR}/tests/install)
endif()
