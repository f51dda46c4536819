// Real tail calls. C# never emits the IL `tail.` prefix, so this scenario
// builds a small assembly with System.Reflection.Emit's
// PersistedAssemblyBuilder, saves it, loads it and calls Emitted.Tails.Start:
//
//   Start(n)       Report("A", A(n)); Report("Countdown", Countdown(n, 0));
//                  Report("Wide", Wide(n)); Report("ToFramework", ToFramework(-n))
//   A(n)           tail. call B(n + 1)
//   B(n)           n * 100 + TailProbe.OnStack("A")
//   Countdown(n, acc)  n == 0 ? acc * 1000 + TailProbe.OnStack("Countdown")
//                      : tail. call Countdown(n - 1, acc + 1)
//   Wide(n)        tail. call Many(n, n+1, ..., n+9)      (more stack arguments
//                  than Wide has: not a "fast" tail call on x64 SysV)
//   Many(a0..a9)   a0 + ... + a9 + 1000 * TailProbe.OnStack("Wide")
//   ToFramework(n) tail. call System.Math.Abs(int)          (untraced target)
//
// TailProbe.OnStack counts the frames of Emitted.Tails.NAME on the stack, so
// the program itself prints whether each tail call really replaced its
// caller's frame (A: 0 frames, Countdown: 1 frame, Wide: 0 frames).
using System;
using System.Diagnostics;
using System.IO;
using System.Reflection;
using System.Reflection.Emit;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class TailProbe
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int OnStack(string method)
        {
            int n = 0;
            foreach (StackFrame f in new StackTrace(false).GetFrames())
            {
                MethodBase m = f.GetMethod();
                if (m != null && m.Name == method && m.DeclaringType?.FullName == "Emitted.Tails")
                {
                    n++;
                }
            }
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void Report(string what, int value)
        {
            Console.WriteLine("tailcalls: " + what + "=" + value);
        }
    }

    public static class TailCalls
    {
        public static int Run(string dir)
        {
            dir ??= Path.GetTempPath();
            string path = Path.Combine(dir, "Emitted-" + Environment.ProcessId + ".dll");
            Build(path);
            Assembly asm = Assembly.LoadFrom(path);
            File.Delete(path);
            MethodInfo start = asm.GetType("Emitted.Tails").GetMethod("Start");
            var f = (Func<int, int>)Delegate.CreateDelegate(typeof(Func<int, int>), start);
            int r = f(5);
            Console.WriteLine("tailcalls: start=" + r);
            return 0;
        }

        private static void Build(string path)
        {
            var ab = new PersistedAssemblyBuilder(new AssemblyName("Emitted"), typeof(object).Assembly);
            ModuleBuilder mod = ab.DefineDynamicModule("Emitted");
            TypeBuilder tb = mod.DefineType("Emitted.Tails", TypeAttributes.Public | TypeAttributes.Abstract
                                                             | TypeAttributes.Sealed | TypeAttributes.Class);
            const MethodAttributes S = MethodAttributes.Public | MethodAttributes.Static;
            MethodInfo onStack = typeof(TailProbe).GetMethod(nameof(TailProbe.OnStack));
            MethodInfo report = typeof(TailProbe).GetMethod(nameof(TailProbe.Report));
            MethodInfo abs = typeof(Math).GetMethod(nameof(Math.Abs), new[] { typeof(int) });

            MethodBuilder start = tb.DefineMethod("Start", S, typeof(int), new[] { typeof(int) });
            MethodBuilder a = tb.DefineMethod("A", S, typeof(int), new[] { typeof(int) });
            MethodBuilder b = tb.DefineMethod("B", S, typeof(int), new[] { typeof(int) });
            MethodBuilder countdown = tb.DefineMethod("Countdown", S, typeof(int), new[] { typeof(int), typeof(int) });
            MethodBuilder wide = tb.DefineMethod("Wide", S, typeof(int), new[] { typeof(int) });
            var ten = new Type[10];
            Array.Fill(ten, typeof(int));
            MethodBuilder many = tb.DefineMethod("Many", S, typeof(int), ten);
            MethodBuilder toFramework = tb.DefineMethod("ToFramework", S, typeof(int), new[] { typeof(int) });
            a.DefineParameter(1, ParameterAttributes.None, "n");
            b.DefineParameter(1, ParameterAttributes.None, "n");
            start.DefineParameter(1, ParameterAttributes.None, "n");
            countdown.DefineParameter(1, ParameterAttributes.None, "n");
            countdown.DefineParameter(2, ParameterAttributes.None, "acc");
            wide.DefineParameter(1, ParameterAttributes.None, "n");
            for (int i = 0; i < 10; i++)
            {
                many.DefineParameter(i + 1, ParameterAttributes.None, "a" + i);
            }
            toFramework.DefineParameter(1, ParameterAttributes.None, "n");

            // Start: normal calls, each result reported.
            ILGenerator il = start.GetILGenerator();
            void ReportCall(string what, MethodInfo target, bool negate)
            {
                il.Emit(OpCodes.Ldstr, what);
                il.Emit(OpCodes.Ldarg_0);
                if (negate)
                {
                    il.Emit(OpCodes.Neg);
                }
                if (target == countdown)
                {
                    il.Emit(OpCodes.Ldc_I4_0);
                }
                il.Emit(OpCodes.Call, target);
                il.Emit(OpCodes.Call, report);
            }
            ReportCall("A", a, false);
            ReportCall("Countdown", countdown, false);
            ReportCall("Wide", wide, false);
            ReportCall("ToFramework", toFramework, true);
            il.Emit(OpCodes.Ldc_I4_0);
            il.Emit(OpCodes.Ret);

            // A: tail. call B(n + 1)
            il = a.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Tailcall);
            il.Emit(OpCodes.Call, b);
            il.Emit(OpCodes.Ret);

            // B: n * 100 + OnStack("A")
            il = b.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4, 100);
            il.Emit(OpCodes.Mul);
            il.Emit(OpCodes.Ldstr, "A");
            il.Emit(OpCodes.Call, onStack);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);

            // Countdown(n, acc)
            il = countdown.GetILGenerator();
            Label recurse = il.DefineLabel();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Brtrue, recurse);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldc_I4, 1000);
            il.Emit(OpCodes.Mul);
            il.Emit(OpCodes.Ldstr, "Countdown");
            il.Emit(OpCodes.Call, onStack);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);
            il.MarkLabel(recurse);
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Sub);
            il.Emit(OpCodes.Ldarg_1);
            il.Emit(OpCodes.Ldc_I4_1);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Tailcall);
            il.Emit(OpCodes.Call, countdown);
            il.Emit(OpCodes.Ret);

            // Wide: tail. call Many(n, n + 1, ..., n + 9)
            il = wide.GetILGenerator();
            for (int i = 0; i < 10; i++)
            {
                il.Emit(OpCodes.Ldarg_0);
                il.Emit(OpCodes.Ldc_I4, i);
                il.Emit(OpCodes.Add);
            }
            il.Emit(OpCodes.Tailcall);
            il.Emit(OpCodes.Call, many);
            il.Emit(OpCodes.Ret);

            // Many: the sum of its arguments + 1000 * OnStack("Wide")
            il = many.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            for (short i = 1; i < 10; i++)
            {
                il.Emit(OpCodes.Ldarg, i);
                il.Emit(OpCodes.Add);
            }
            il.Emit(OpCodes.Ldstr, "Wide");
            il.Emit(OpCodes.Call, onStack);
            il.Emit(OpCodes.Ldc_I4, 1000);
            il.Emit(OpCodes.Mul);
            il.Emit(OpCodes.Add);
            il.Emit(OpCodes.Ret);

            // ToFramework: tail. call Math.Abs(n)
            il = toFramework.GetILGenerator();
            il.Emit(OpCodes.Ldarg_0);
            il.Emit(OpCodes.Tailcall);
            il.Emit(OpCodes.Call, abs);
            il.Emit(OpCodes.Ret);

            tb.CreateType();
            ab.Save(path);
        }
    }
}
