# Writes the bridge tests' kernel set: a developer set (docs/kernel-sets.md: a folder of code objects without a
# manifest, served without checks) holding the build's exact CPU kernels (its accuracy set) and d4r_nn_block's
# exact host kernel, which the build's CPU sets leave out (they are made for unfused plans). Over it the refine
# network fuses its blocks on the cpu backend, as it does over a set made for fused plans (the sm_90 sets).
#   cmake -DACCURACY=<build>/share/d4r/native/accuracy/cpu -DOUT=DIR -P native_set.cmake
if(NOT ACCURACY OR NOT OUT)
    message(FATAL_ERROR "usage: cmake -DACCURACY=DIR -DOUT=DIR -P native_set.cmake")
endif()
file(GLOB objects ${ACCURACY}/*.cpu)
if(NOT objects)
    message(FATAL_ERROR "no .cpu code objects in ${ACCURACY} (is the build's kernel set built?)")
endif()
file(REMOVE_RECURSE ${OUT})
file(MAKE_DIRECTORY ${OUT})
file(COPY ${objects} DESTINATION ${OUT})
file(WRITE ${OUT}/d4r_nn_block.cpu "1\n")
list(LENGTH objects n)
message(STATUS "developer kernel set ${OUT}: ${n} kernels of ${ACCURACY} and d4r_nn_block")
