# Backend detection: one configure line per backend saying whether it is built and, when not, why and how to get it.
#   host: always.  HIP: enable_language(HIP) works.  HSA: hsa-runtime64 found.  CUDA: nvcc works.
# A language is probed in a throw-away sub-project first, so a broken toolchain is a line, not a fatal error.

function(vmr_probe_language lang out_var)
  set(dir ${CMAKE_BINARY_DIR}/CMakeFiles/vmr-probe-${lang})
  file(REMOVE_RECURSE ${dir})
  file(WRITE ${dir}/CMakeLists.txt
       "cmake_minimum_required(VERSION 3.21)\nproject(probe LANGUAGES CXX ${lang})\n")
  set(args)
  foreach(var CMAKE_${lang}_COMPILER CMAKE_${lang}_FLAGS CMAKE_${lang}_ARCHITECTURES CMAKE_CUDA_HOST_COMPILER
              CMAKE_PREFIX_PATH)
    if(DEFINED ${var} AND NOT "${${var}}" STREQUAL "")
      string(REPLACE ";" "\\;" _value "${${var}}")  # a list of targets stays one -D argument
      list(APPEND args "-D${var}=${_value}")
    endif()
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${dir} -B ${dir}/build -G ${CMAKE_GENERATOR} ${args}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    set(${out_var} ON PARENT_SCOPE)
  else()
    # The reason whole, on one line: CMake's first error block, from "CMake Error" to its call stack or the two
    # blank lines that end a message (a reason spans paragraphs: "The CMAKE_HIP_COMPILER:", the path, then why).
    string(FIND "${err}" "CMake Error" from)
    if(from EQUAL -1)
      set(why "${err}")
    else()
      string(SUBSTRING "${err}" ${from} -1 why)
    endif()
    foreach(block_end "\nCall Stack (most recent call first):" "\n\n\n")
      string(FIND "${why}" "${block_end}" at)
      if(NOT at EQUAL -1)
        string(SUBSTRING "${why}" 0 ${at} why)
      endif()
    endforeach()
    string(REGEX REPLACE "[ \t\r\n]+" " " why "${why}")
    string(STRIP "${why}" why)
    if(why STREQUAL "")
      set(why "the probe's configure exited ${rc} without saying why")
    endif()
    set(${out_var} OFF PARENT_SCOPE)
    set(${out_var}_WHY "${why}" PARENT_SCOPE)
  endif()
endfunction()

message(STATUS "backend host: ON (always)")

# --- HIP ------------------------------------------------------------------------------------------------------------
# Every CDNA target (MI200 gfx90a, MI300 gfx942, MI350 gfx950): the one list of them. scripts/amalgamate reads this
# line (keep it one line) for the single-file reproducers' build lines.
set(VMR_HIP_CDNA_TARGETS "gfx90a;gfx942;gfx950" CACHE STRING "Every CDNA target: the AMD targets when no GPU tool names the GPUs present")

# The AMD targets when none is given. A build without the device's target fails every kernel with
# hipErrorNoBinaryForGpu, so: with a full ROCm, the GPUs present (amdgpu-arch or rocm_agent_enumerator); otherwise
# every CDNA target (VMR_HIP_CDNA_TARGETS) the compiler accepts.
function(vmr_hip_default_architectures out_var how_var)
  foreach(_tool amdgpu-arch rocm_agent_enumerator)
    unset(_path)  # find_program does not search again while the variable holds an earlier tool's path
    find_program(_path ${_tool} HINTS /opt/rocm/llvm/bin /opt/rocm/bin NO_CACHE)
    if(NOT _path)
      continue()
    endif()
    execute_process(COMMAND ${_path} OUTPUT_VARIABLE _out RESULT_VARIABLE _rc ERROR_QUIET TIMEOUT 60)
    string(REGEX MATCHALL "gfx[0-9a-f]+" _found "${_out}")
    list(REMOVE_ITEM _found gfx000)  # rocm_agent_enumerator's name for the CPU agent
    list(REMOVE_DUPLICATES _found)
    if(_rc EQUAL 0 AND _found)
      set(${out_var} "${_found}" PARENT_SCOPE)
      set(${how_var} "the GPUs present, from ${_tool}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
  if(DEFINED CMAKE_HIP_COMPILER)
    set(_cxx ${CMAKE_HIP_COMPILER})
  else()
    find_program(_cxx NAMES clang++ hipcc HINTS /opt/rocm/llvm/bin /opt/rocm/bin NO_CACHE)
  endif()
  set(_dir ${CMAKE_BINARY_DIR}/CMakeFiles/vmr-probe-hip-archs)
  file(MAKE_DIRECTORY ${_dir})
  file(WRITE ${_dir}/empty.hip "")
  set(_accepted)
  set(_rejected)
  foreach(_arch ${VMR_HIP_CDNA_TARGETS})
    execute_process(COMMAND ${_cxx} -x hip --offload-arch=${_arch} -nogpulib -nogpuinc --cuda-device-only -c
                            ${_dir}/empty.hip -o ${_dir}/${_arch}.o
                    RESULT_VARIABLE _rc OUTPUT_QUIET ERROR_QUIET)
    if(_rc EQUAL 0)
      list(APPEND _accepted ${_arch})
    else()
      list(APPEND _rejected ${_arch})
    endif()
  endforeach()
  if(NOT _accepted)
    list(GET VMR_HIP_CDNA_TARGETS 0 _accepted)  # the probe itself failed: the language probe below will say why
  endif()
  string(REPLACE ";" ", " _rej "${_rejected}")
  set(${out_var} "${_accepted}" PARENT_SCOPE)
  set(${how_var} "no GPU tool found: every CDNA target ${_cxx} accepts" PARENT_SCOPE)
  if(_rejected)
    set(${how_var} "no GPU tool found: every CDNA target ${_cxx} accepts (it rejects ${_rej})" PARENT_SCOPE)
  endif()
endfunction()

option(VMR_ENABLE_HIP "Build the HIP/HSA reproducers when a HIP toolchain works" ON)
set(VMR_HAVE_HIP OFF)
if(NOT VMR_ENABLE_HIP)
  message(STATUS "backend hip: OFF (VMR_ENABLE_HIP=OFF)")
elseif(NOT DEFINED CMAKE_HIP_COMPILER AND NOT EXISTS /opt/rocm/bin/hipcc AND NOT EXISTS /usr/bin/hipcc)
  message(STATUS "backend hip: OFF (no HIP compiler; Debian 12: apt-get install hipcc libamdhip64-dev "
                 "libhsa-runtime-dev, then configure with --preset debian-rocm, or run ./scripts/test --with-rocm)")
else()
  if(NOT DEFINED CMAKE_HIP_ARCHITECTURES)
    vmr_hip_default_architectures(_archs _archs_how)
    set(CMAKE_HIP_ARCHITECTURES "${_archs}" CACHE STRING "AMD GPU targets (${_archs_how})")
    message(STATUS "backend hip: targets ${_archs}: ${_archs_how}; set -DCMAKE_HIP_ARCHITECTURES=... to choose")
  endif()
  vmr_probe_language(HIP _hip_ok)
  if(_hip_ok)
    enable_language(HIP)
    set(VMR_HAVE_HIP ON)
    message(STATUS "backend hip: ON (${CMAKE_HIP_COMPILER}, targets ${CMAKE_HIP_ARCHITECTURES})")
  else()
    message(STATUS "backend hip: OFF (enable_language(HIP) fails: ${_hip_ok_WHY}; on Debian 12 use "
                   "--preset debian-rocm after ./scripts/test --with-rocm has linked ROCm's CMake packages)")
  endif()
endif()

# --- HSA ------------------------------------------------------------------------------------------------------------
set(VMR_HAVE_HSA OFF)
if(VMR_HAVE_HIP)
  find_package(hsa-runtime64 CONFIG QUIET)
  if(hsa-runtime64_FOUND)
    set(VMR_HAVE_HSA ON)
    message(STATUS "backend hsa: ON (hsa-runtime64 ${hsa-runtime64_VERSION})")
  else()
    message(STATUS "backend hsa: OFF (hsa-runtime64 not found; Debian: apt-get install libhsa-runtime-dev)")
  endif()
else()
  message(STATUS "backend hsa: OFF (needs the HIP backend for its kernels)")
endif()

# --- CUDA -----------------------------------------------------------------------------------------------------------
# The NVIDIA targets when none is given: every major architecture the compiler supports from sm_60, plus PTX of the
# newest, by the rule scripts/amalgamate and the build without cmake use too (scripts/lib/cuda_archs.sh). A binary
# without code for its GPU SKIPs every case naming both (cuda_rules.h missing_kernel_image).
function(vmr_cuda_default_architectures out_var how_var)
  # (On failure the rule's fallback, vmr_cuda_fallback_archs, is printed instead: its one place is that file.)
  execute_process(COMMAND bash -c "source \"$1\" && { vmr_cuda_default_archs \"$2\" || { echo \"$vmr_cuda_fallback_archs\"; exit 1; }; }" vmr
                          ${CMAKE_SOURCE_DIR}/scripts/lib/cuda_archs.sh ${CMAKE_CUDA_COMPILER}
                  OUTPUT_VARIABLE _archs ERROR_VARIABLE _err RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE
                  ERROR_STRIP_TRAILING_WHITESPACE TIMEOUT 60)
  if(_rc EQUAL 0 AND _archs)
    set(${out_var} "${_archs}" PARENT_SCOPE)
    set(${how_var} "each major architecture from sm_60 that ${CMAKE_CUDA_COMPILER} --list-gpu-code names, PTX of the newest"
        PARENT_SCOPE)
  else()
    string(REPLACE "\n" " " _err "${_err}")
    if(NOT _archs)
      message(FATAL_ERROR "scripts/lib/cuda_archs.sh gave no CUDA targets, not even its fallback: ${_err}")
    endif()
    set(${out_var} "${_archs}" PARENT_SCOPE)
    set(${how_var} "nvcc's ${_archs}: the rule could not ask the compiler (${_err})" PARENT_SCOPE)
  endif()
endfunction()

option(VMR_ENABLE_CUDA "Build the CUDA reference when nvcc works" ON)
set(VMR_HAVE_CUDA OFF)
if(NOT VMR_ENABLE_CUDA)
  message(STATUS "backend cuda: OFF (VMR_ENABLE_CUDA=OFF)")
else()
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc CACHE FILEPATH "nvcc")
  endif()
  if(NOT DEFINED CMAKE_CUDA_COMPILER)
    message(STATUS "backend cuda: OFF (no nvcc; install the CUDA toolkit or set CMAKE_CUDA_COMPILER)")
  else()
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      vmr_cuda_default_architectures(_archs _archs_how)
      set(CMAKE_CUDA_ARCHITECTURES "${_archs}" CACHE STRING "NVIDIA GPU targets (${_archs_how})")
      message(STATUS "backend cuda: targets ${_archs}: ${_archs_how}; set -DCMAKE_CUDA_ARCHITECTURES=... to choose")
    endif()
    vmr_probe_language(CUDA _cuda_ok)
    if(_cuda_ok)
      enable_language(CUDA)
      set(VMR_HAVE_CUDA ON)
      message(STATUS "backend cuda: ON (${CMAKE_CUDA_COMPILER}, targets ${CMAKE_CUDA_ARCHITECTURES}; "
                     "cudart linked statically so binaries start without libcuda.so.1)")
    else()
      message(STATUS "backend cuda: OFF (enable_language(CUDA) fails: ${_cuda_ok_WHY})")
    endif()
  endif()
endif()
