# The pytest suite, one CTest test per file (so `ctest -j` runs them side by side). They import the
# module from build/python and compare with the CLI built alongside.
file(GLOB _pytests CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tests/test_*.py)
find_program(BGOLLY_FOR_PYTHON bgolly)
# Not build/python: a script run there would import the package from its working directory.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tests)
foreach(file IN LISTS _pytests)
  get_filename_component(name ${file} NAME_WE)
  string(REGEX REPLACE "^test_" "" name ${name})
  add_test(NAME python.${name}
           COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${file}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/tests)
  set_tests_properties(python.${name} PROPERTIES TIMEOUT 900 ENVIRONMENT
    "PYTHONPATH=${PROJECT_BINARY_DIR}/python;PYTHONDONTWRITEBYTECODE=1;TILELIFE_CLI=$<TARGET_FILE:tilelife_cli>;TILELIFE_SOURCE_DIR=${PROJECT_SOURCE_DIR};TILELIFE_BGOLLY=${BGOLLY_FOR_PYTHON};TILELIFE_PIP_WORK=${CMAKE_CURRENT_BINARY_DIR}/pip-work")
endforeach()
