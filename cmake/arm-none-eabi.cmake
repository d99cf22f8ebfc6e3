# A CMake toolchain file for bare-metal Arm with the Arm GNU toolchain (arm-none-eabi-gcc).
# Give the core and float ABI in the project (e.g. -mcpu=cortex-m4 -mthumb -mfloat-abi=hard).
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
# Test programs are not linked (there is no start-up code to link them with yet).
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
