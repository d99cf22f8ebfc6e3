/* Bare-metal start-up for umac's firmware harness on Arm Cortex-M boards under QEMU
 * (mps3-an547 Cortex-M55, mps2-an386 Cortex-M4, mps2-an500 Cortex-M7, mps2-an385 Cortex-M3,
 * mps2-an505 Cortex-M33).
 *
 * QEMU loads the ELF segments and resets the core: SP comes from address 0, PC from 4. The
 * reset handler enables the FPU/MVE coprocessors, zeroes .bss, opens semihosting and calls
 * main; main's return value becomes QEMU's exit status. Every fault exits with its own status
 * (101-105) so a crash never hangs the emulator. */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __stack_top;
extern uint32_t __bss_start__;
extern uint32_t __bss_end__;
extern int main(void);
extern void initialise_monitor_handles(void);

/* newlib calls these from exit(); there are no constructors to run. */
void _init(void) {}
void _fini(void) {}

void Reset_Handler(void) {
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
    /* CPACR: full access to CP10 and CP11 (FPU and MVE) before any FP or vector instruction
     * (cores without them have no CPACR). */
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
    __asm volatile("dsb\n\tisb" ::: "memory");
#endif
    for (uint32_t *p = &__bss_start__; p < &__bss_end__; ++p) {
        *p = 0;
    }
    initialise_monitor_handles();
    exit(main());
}

static void fault_exit(int status) { _Exit(status); }
void HardFault_Handler(void) { fault_exit(101); }
void MemManage_Handler(void) { fault_exit(102); }
void BusFault_Handler(void) { fault_exit(103); }
void UsageFault_Handler(void) { fault_exit(104); }
void Default_Handler(void) { fault_exit(105); }

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
    (void (*)(void))&__stack_top,
    Reset_Handler,
    Default_Handler, /* NMI */
    HardFault_Handler,
    MemManage_Handler,
    BusFault_Handler,
    UsageFault_Handler,
    0, 0, 0, 0,
    Default_Handler, /* SVCall */
    Default_Handler, /* DebugMonitor */
    0,
    Default_Handler, /* PendSV */
    Default_Handler, /* SysTick */
};
