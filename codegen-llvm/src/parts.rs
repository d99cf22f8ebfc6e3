//! Compiling one module on several threads: its functions split into parts balanced by size,
//! each part optimized and compiled into its own object in its own LLVM context (an LLVM context
//! is single-threaded). Like a C compiler's translation units, or rustc's codegen units: a symbol
//! one part uses and another defines gets external linkage, every other symbol keeps its own.

use crate::{Error, OptLevel, Result, Target, emit_object, optimize, target_machine};
use inkwell::{
    context::Context,
    llvm_sys::{core::*, prelude::LLVMValueRef},
    memory_buffer::MemoryBuffer,
    module::{Linkage, Module},
    values::AsValueRef,
};
use std::collections::HashSet;

/// One part's object, and its optimized LLVM IR when asked for.
pub struct Part {
    /// The object file.
    pub object: Vec<u8>,
    /// The part's optimized LLVM IR (`print_ir`).
    pub ir: Option<String>,
}

/// Optimizes `module` for `target` and compiles it into objects: one when `parts` is 1 or the
/// module defines one function, else at most `parts`, compiled at once on as many threads.
/// Linked together (or loaded into one JIT dylib) the objects are the module. The module's own
/// symbols that end up used across parts become external (with their own names), so the
/// objects must not be linked beside other code defining the same names; the exported ones are
/// what they were.
pub fn compile_in_parts(
    module: &Module,
    target: &Target,
    opt: OptLevel,
    parts: usize,
    print_ir: bool,
) -> Result<Vec<Part>> {
    let plan = Plan::new(module, parts);
    if plan.parts <= 1 {
        let machine = target_machine(target, opt)?;
        optimize(module, &machine, opt)?;
        let ir = print_ir.then(|| module.print_to_string().to_string());
        return Ok(vec![Part { object: emit_object(module, &machine)?, ir }]);
    }
    plan.expose(module);
    let bitcode = module.write_bitcode_to_memory().as_slice().to_vec();
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..plan.parts)
            .map(|part| {
                let (plan, bitcode) = (&plan, &bitcode);
                scope.spawn(move || compile_part(bitcode, plan, part, target, opt, print_ir))
            })
            .collect();
        handles
            .into_iter()
            .map(|handle| handle.join().map_err(|_| Error::Llvm("a code generation thread panicked".into()))?)
            .collect()
    })
}

/// Which part defines each function and global (by position in the module, which bitcode
/// keeps), and which of them the other parts use (each symbol's users found once).
#[derive(Debug)]
struct Plan {
    parts: usize,
    functions: Vec<usize>,
    globals: Vec<usize>,
    /// The symbols a part other than their own uses.
    shared: Vec<Symbol>,
}

/// A defined symbol of the module: `Function(i)` or `Global(i)` by position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Symbol {
    Function(usize),
    Global(usize),
}

impl Plan {
    /// Functions go to parts by size (instructions), largest first into the smallest part; a
    /// global goes to the part of its first user (or part 0), so constants read by one
    /// operator are compiled with it.
    fn new(module: &Module, parts: usize) -> Self {
        let functions: Vec<LLVMValueRef> = module.get_functions().map(|f| f.as_value_ref()).collect();
        let globals: Vec<LLVMValueRef> = module.get_globals().map(|g| g.as_value_ref()).collect();
        let sizes: Vec<usize> = functions.iter().map(|&f| instructions(f)).collect();
        let defined = sizes.iter().filter(|&&n| n > 0).count();
        let parts = parts.min(defined).max(1);
        let function_users: Vec<Vec<Symbol>> = functions.iter().map(|&f| users(f, &functions, &globals)).collect();
        let global_users: Vec<Vec<Symbol>> = globals.iter().map(|&g| users(g, &functions, &globals)).collect();
        let functions_part = balance(&sizes, parts);
        let globals_part = global_users
            .iter()
            .map(|users| match users.first() {
                Some(Symbol::Function(f)) => functions_part[*f],
                _ => 0,
            })
            .collect();
        let mut plan = Self { parts, functions: functions_part, globals: globals_part, shared: Vec::new() };
        let symbols = (0..functions.len())
            .map(Symbol::Function)
            .zip(&function_users)
            .chain((0..globals.len()).map(Symbol::Global).zip(&global_users));
        plan.shared = symbols
            .filter(|(symbol, users)| users.iter().any(|user| plan.part(*user) != plan.part(*symbol)))
            .map(|(symbol, _)| symbol)
            .collect();
        plan
    }

    fn part(&self, symbol: Symbol) -> usize {
        match symbol {
            Symbol::Function(i) => self.functions[i],
            Symbol::Global(i) => self.globals[i],
        }
    }

    /// Gives the module's local symbols that another part uses external linkage (and a name,
    /// should they have none), so that each part can refer to them.
    fn expose(&self, module: &Module) {
        let functions: Vec<LLVMValueRef> = module.get_functions().map(|f| f.as_value_ref()).collect();
        let globals: Vec<LLVMValueRef> = module.get_globals().map(|g| g.as_value_ref()).collect();
        for &symbol in &self.shared {
            let value = match symbol {
                Symbol::Function(i) => functions[i],
                Symbol::Global(i) => globals[i],
            };
            // SAFETY: `value` is a live global value of `module`; linkage, visibility and name
            // changes keep the module valid (names stay unique: a new name is numbered).
            unsafe {
                let linkage = LLVMGetLinkage(value);
                let local = matches!(
                    linkage,
                    inkwell::llvm_sys::LLVMLinkage::LLVMInternalLinkage
                        | inkwell::llvm_sys::LLVMLinkage::LLVMPrivateLinkage
                );
                if local {
                    LLVMSetLinkage(value, inkwell::llvm_sys::LLVMLinkage::LLVMExternalLinkage);
                    LLVMSetVisibility(value, inkwell::llvm_sys::LLVMVisibility::LLVMDefaultVisibility);
                    let mut length = 0;
                    LLVMGetValueName2(value, &mut length);
                    if length == 0 {
                        let name = format!("__umac_part_symbol_{symbol:?}").replace(['(', ')'], "");
                        LLVMSetValueName2(value, name.as_ptr().cast(), name.len());
                    }
                }
            }
        }
    }
}

/// Part `part` of the module in `bitcode`: every function and global another part defines
/// replaced by a declaration, then optimized and compiled in a context of its own.
fn compile_part(
    bitcode: &[u8],
    plan: &Plan,
    part: usize,
    target: &Target,
    opt: OptLevel,
    print_ir: bool,
) -> Result<Part> {
    let context = Context::create();
    // Parsed from a buffer this function keeps and frees (`create_module_from_ir` leaks it on
    // LLVM 22, see `crate::parse_ir`).
    let buffer = MemoryBuffer::create_from_memory_range(bitcode, "umac-part");
    let module = Module::parse_bitcode_from_buffer(&buffer, &context).map_err(|e| Error::Llvm(e.to_string()))?;
    let functions: Vec<_> = module.get_functions().collect();
    for (i, function) in functions.into_iter().enumerate() {
        if function.count_basic_blocks() == 0 || plan.functions[i] == part {
            continue;
        }
        let declaration = module.add_function("", function.get_type(), Some(Linkage::External));
        declaration.set_call_conventions(function.get_call_conventions());
        let name = function.get_name().to_owned();
        function.replace_all_uses_with(declaration);
        // SAFETY: every use now refers to the declaration; the function is deleted once.
        unsafe { function.delete() };
        declaration.as_global_value().set_name(&name.to_string_lossy());
    }
    let globals: Vec<_> = module.get_globals().collect();
    for (i, global) in globals.into_iter().enumerate() {
        if global.get_initializer().is_none() || plan.globals[i] == part {
            continue;
        }
        let name = global.get_name().to_owned();
        if name.to_bytes().starts_with(b"llvm.") {
            // LLVM's own tables (`llvm.used`, `llvm.global_ctors`): part 0 keeps them.
            // SAFETY: nothing uses such a table; it is deleted once.
            unsafe { global.delete() };
            continue;
        }
        // SAFETY: as above: a declaration of the same type takes every use, then the global
        // is deleted once.
        unsafe {
            let value = global.as_value_ref();
            let declaration = LLVMAddGlobalInAddressSpace(
                module.as_mut_ptr(),
                LLVMGlobalGetValueType(value),
                c"".as_ptr(),
                LLVMGetPointerAddressSpace(LLVMTypeOf(value)),
            );
            LLVMSetGlobalConstant(declaration, LLVMIsGlobalConstant(value));
            LLVMReplaceAllUsesWith(value, declaration);
            global.delete();
            let name = name.to_string_lossy();
            LLVMSetValueName2(declaration, name.as_ptr().cast(), name.len());
        }
    }
    if part != 0 {
        module.set_inline_assembly("");
    }
    let machine = target_machine(target, opt)?;
    optimize(&module, &machine, opt)?;
    let ir = print_ir.then(|| module.print_to_string().to_string());
    Ok(Part { object: emit_object(&module, &machine)?, ir })
}

/// The instructions of a function (0: a declaration).
fn instructions(function: LLVMValueRef) -> usize {
    let mut count = 0;
    // SAFETY: walks the blocks and instructions of a live function without changing them.
    unsafe {
        let mut block = LLVMGetFirstBasicBlock(function);
        while !block.is_null() {
            let mut instruction = LLVMGetFirstInstruction(block);
            while !instruction.is_null() {
                count += 1;
                instruction = LLVMGetNextInstruction(instruction);
            }
            block = LLVMGetNextBasicBlock(block);
        }
    }
    count
}

/// The functions (by their instructions) and globals (by their initializers) that use `value`,
/// through constant expressions too, in the order of its uses.
fn users(value: LLVMValueRef, functions: &[LLVMValueRef], globals: &[LLVMValueRef]) -> Vec<Symbol> {
    fn walk(value: LLVMValueRef, found: &mut Vec<LLVMValueRef>, seen: &mut HashSet<LLVMValueRef>) {
        // SAFETY: reads the use list of a live value and the users' parents.
        unsafe {
            let mut using = LLVMGetFirstUse(value);
            while !using.is_null() {
                let user = LLVMGetUser(using);
                if !LLVMIsAInstruction(user).is_null() {
                    found.push(LLVMGetBasicBlockParent(LLVMGetInstructionParent(user)));
                } else if !LLVMIsAGlobalValue(user).is_null() {
                    found.push(user);
                } else if !LLVMIsAConstant(user).is_null() && seen.insert(user) {
                    walk(user, found, seen);
                }
                using = LLVMGetNextUse(using);
            }
        }
    }
    let mut found = Vec::new();
    walk(value, &mut found, &mut HashSet::new());
    let mut symbols: Vec<Symbol> = Vec::new();
    for user in found {
        let symbol = functions
            .iter()
            .position(|&f| f == user)
            .map(Symbol::Function)
            .or_else(|| globals.iter().position(|&g| g == user).map(Symbol::Global));
        if let Some(symbol) = symbol
            && !symbols.contains(&symbol)
        {
            symbols.push(symbol);
        }
    }
    symbols
}

/// Assigns items of the given sizes (0: nothing to compile) to `parts` parts, largest first
/// into the part with the least so far (the first of those on a tie); sizeless items go to
/// part 0.
fn balance(sizes: &[usize], parts: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(sizes[i]));
    let mut load = vec![0usize; parts.max(1)];
    let mut part = vec![0; sizes.len()];
    for i in order.into_iter().filter(|&i| sizes[i] > 0) {
        let least = (0..load.len()).min_by_key(|&p| load[p]).unwrap_or(0);
        part[i] = least;
        load[least] += sizes[i];
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{JitProgram, prepare};

    /// Two functions in different parts share an internal helper, an internal table and an
    /// unnamed private constant; the entry reads its input through the caller's array. x = 1:
    /// f(1) = table[1] + c[0] = 25, g(2) = table[2] * c[1] = 210.
    const PROGRAM: &str = r#"
@table = internal constant [4 x i32] [i32 10, i32 20, i32 30, i32 40]
@0 = private constant [2 x i32] [i32 5, i32 7]

define internal i32 @helper(i32 %x) {
  %p = getelementptr [4 x i32], ptr @table, i32 0, i32 %x
  %v = load i32, ptr %p
  ret i32 %v
}

define internal i32 @f(i32 %x) noinline {
  %a = call i32 @helper(i32 %x)
  %b = load i32, ptr @0
  %c = add i32 %a, %b
  ret i32 %c
}

define internal i32 @g(i32 %x) noinline {
  %a = call i32 @helper(i32 %x)
  %p = getelementptr inbounds i8, ptr @0, i64 4
  %b = load i32, ptr %p
  %c = mul i32 %a, %b
  ret i32 %c
}

define i32 @run(ptr %in, ptr %out, ptr %ws) {
  %p = load ptr, ptr %in
  %x = load i32, ptr %p
  %y = add i32 %x, 1
  %a = call i32 @f(i32 %x)
  %b = call i32 @g(i32 %y)
  %c = add i32 %a, %b
  ret i32 %c
}
"#;

    #[test]
    fn vector_bits_from_features() {
        let with = |features: &str| Target { features: features.into(), ..Target::host() }.vector_bits();
        assert_eq!(with("+sse2,+avx,+avx2,+avx512f,-avx512fp16"), 512);
        assert_eq!(with("+sse2,+avx,+avx2,-avx512f"), 256);
        assert_eq!(with("+sse2,-avx,-avx2"), 128);
        assert_eq!(with("+neon,+fp-armv8"), 128);
    }

    #[test]
    fn parts_link_into_the_program() {
        let target = Target::host();
        for parts in [1, 2, 3, 4, 8] {
            let context = Context::create();
            let module = crate::parse_ir(&context, PROGRAM, "program.ll").unwrap();
            prepare(&module, &target_machine(&target, OptLevel::Standard).unwrap());
            let compiled = compile_in_parts(&module, &target, OptLevel::Standard, parts, true).unwrap();
            // Four functions: at most four parts, each with its IR.
            assert_eq!(compiled.len(), parts.min(4), "{parts} parts");
            assert!(compiled.iter().all(|part| part.ir.is_some()));
            let objects: Vec<Vec<u8>> = compiled.into_iter().map(|part| part.object).collect();
            // Linking fails on a symbol defined twice or nowhere.
            let program = JitProgram::load(&objects, "run", &[]).unwrap();
            let x = 1i32;
            let inputs = [(&raw const x).cast::<u8>()];
            // SAFETY: `run` reads one pointer to an i32 from its first argument, nothing else.
            let result = unsafe { program.entry()(inputs.as_ptr(), std::ptr::null(), std::ptr::null_mut()) };
            assert_eq!(result, 235, "{parts} parts");
        }
    }

    #[test]
    fn largest_first_into_the_lightest_part() {
        // 9 -> part 0; 7 -> part 1; 5 -> part 1 (7 < 9); 4 -> part 0 (9 < 12); 0 -> part 0.
        assert_eq!(balance(&[5, 0, 9, 4, 7], 2), vec![1, 0, 0, 0, 1]);
        assert_eq!(balance(&[3, 3, 3], 1), vec![0, 0, 0]);
        assert_eq!(balance(&[1, 2], 4), vec![1, 0]);
    }
}
