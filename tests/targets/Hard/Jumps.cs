// Jumps: a method whose IL is `jmp` (leave with the caller's arguments for
// another method of the same signature), which the IL-probe engine does not
// rewrite: it must run unchanged and be counted as left as it was. Built with
// PersistedAssemblyBuilder (C# has no `jmp`), saved, loaded and called:
//   Emitted.Jumps.Jump(int n) { jmp int32 System.Math::Abs(int32) }
// Prints "jmp: Jump(-7)=7".
using System;
using System.IO;
using System.Reflection;
using System.Reflection.Emit;

namespace Hard
{
    public static class Jumps
    {
        public static int Run(string dir)
        {
            dir ??= Path.GetTempPath();
            string path = Path.Combine(dir, "EmittedJumps-" + Environment.ProcessId + ".dll");
            var ab = new PersistedAssemblyBuilder(new AssemblyName("EmittedJumps"), typeof(object).Assembly);
            ModuleBuilder mod = ab.DefineDynamicModule("EmittedJumps");
            TypeBuilder tb = mod.DefineType("Emitted.Jumps", TypeAttributes.Public | TypeAttributes.Abstract
                                                             | TypeAttributes.Sealed | TypeAttributes.Class);
            MethodBuilder jump = tb.DefineMethod("Jump", MethodAttributes.Public | MethodAttributes.Static,
                                                 typeof(int), new[] { typeof(int) });
            jump.DefineParameter(1, ParameterAttributes.None, "n");
            ILGenerator il = jump.GetILGenerator();
            il.Emit(OpCodes.Jmp, typeof(Math).GetMethod(nameof(Math.Abs), new[] { typeof(int) }));
            tb.CreateType();
            ab.Save(path);
            Assembly asm = Assembly.LoadFrom(path);
            File.Delete(path);
            var f = (Func<int, int>)Delegate.CreateDelegate(typeof(Func<int, int>),
                                                            asm.GetType("Emitted.Jumps").GetMethod("Jump"));
            Console.WriteLine("jmp: Jump(-7)=" + f(-7));
            return 0;
        }
    }
}
