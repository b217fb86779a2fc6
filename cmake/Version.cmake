# The version every binary prints in its environment block: git describe of the source tree when there is one.
set(VMR_VERSION "0.1.0")
find_package(Git QUIET)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} describe --always --dirty --tags
                  WORKING_DIRECTORY ${CMAKE_SOURCE_DIR}
                  OUTPUT_VARIABLE _vmr_describe OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _vmr_git_rc ERROR_QUIET)
  if(_vmr_git_rc EQUAL 0 AND _vmr_describe)
    set(VMR_VERSION "0.1.0-${_vmr_describe}")
  endif()
endif()
message(STATUS "vmem-repro version: ${VMR_VERSION}")
