using System;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Threading;
using System.Threading.Tasks;

namespace Arm
{
    // 16 bytes of integers: returned in x0:x1, passed in two x registers.
    public struct Small { public int A; public long B; }
    // Homogeneous floating-point aggregates (AAPCS64 HFA): v0-v1, v0-v3.
    public struct Hfa2 { public double X; public double Y; }
    public struct Hfa4 { public float A; public float B; public float C; public float D; }
    // A homogeneous short-vector aggregate (HVA): two Vector128<float> in v0-v1.
    public struct Hva2 { public Vector128<float> P; public Vector128<float> Q; }
    // 32 bytes: over 16, passed by reference and returned through x8.
    public struct Big { public long A; public long B; public long C; public double D; }

    public static class Calc
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Add(int a, int b) => a + b;

        // Nine integer arguments: the ninth goes on the stack.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Mix(int a, long b, short c, byte d, bool e, char f, uint g, ulong h, int i)
            => a + b + c + d + (e ? 1 : 0) + f + g + (long)h + i;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Scale(double x, float y, double z) => x * y + z;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Greet(string name, int n) => "hello " + name + " #" + n;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Small MakeSmall(int a, long b) => new Small { A = a + 1, B = b * 2 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Hfa2 MakeHfa2(double x, double y) => new Hfa2 { X = x / 2, Y = y + 0.25 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Hfa4 MakeHfa4(float a) => new Hfa4 { A = a, B = a * 2, C = a * 3, D = -a };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float SumHfa4(Hfa4 h) => h.A + h.B + h.C + h.D;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Hva2 MakeHva2(float s)
            => new Hva2 { P = Vector128.Create(s, s + 1, s + 2, s + 3), Q = Vector128.Create(-s) };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float SumHva2(Hva2 h) => Vector128.Sum(h.P + h.Q);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Big MakeBig(long a) => new Big { A = a, B = a + 1, C = a + 2, D = a / 4.0 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long SumBig(Big b) => b.A + b.B + b.C + (long)b.D;

        [DllImport("libc", EntryPoint = "strlen")]
        private static extern nuint CStrlen(byte[] text);

        // Through a P/Invoke into libc: the bytes' length before their NUL.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int NativeLength(string s)
        {
            byte[] bytes = new byte[s.Length + 1];
            for (int i = 0; i < s.Length; i++) bytes[i] = (byte)s[i];
            return (int)CStrlen(bytes);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Check(int x)
        {
            if (x > 10) throw new ArgumentOutOfRangeException(nameof(x), "too big: " + x);
            return x;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Later(int x)
        {
            await Task.Delay(20);
            return x * 3;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Work(int id) => id * 100 + 7;
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            Console.WriteLine("add " + Calc.Add(40, 2));
            Console.WriteLine("mix " + Calc.Mix(1, 2, 3, 4, true, 'A', 7, 8, 9));
            Console.WriteLine("scale " + Calc.Scale(1.5, 2.5f, 0.125));
            Console.WriteLine("greet " + Calc.Greet("arm", 64));
            Small s = Calc.MakeSmall(6, -21);
            Console.WriteLine("small " + s.A + " " + s.B);
            Hfa2 h2 = Calc.MakeHfa2(3, 4);
            Console.WriteLine("hfa2 " + h2.X + " " + h2.Y);
            Hfa4 h4 = Calc.MakeHfa4(1.5f);
            Console.WriteLine("hfa4 " + h4.A + " " + h4.B + " " + h4.C + " " + h4.D + " sum " + Calc.SumHfa4(h4));
            Hva2 v = Calc.MakeHva2(2);
            Console.WriteLine("hva2 " + v.P + " " + v.Q + " sum " + Calc.SumHva2(v));
            Big b = Calc.MakeBig(10);
            Console.WriteLine("big " + b.A + " " + b.B + " " + b.C + " " + b.D + " sum " + Calc.SumBig(b));
            Console.WriteLine("strlen " + Calc.NativeLength("qemu-user"));
            try
            {
                Calc.Check(5);
                Calc.Check(11);
            }
            catch (ArgumentOutOfRangeException e)
            {
                Console.WriteLine("caught " + e.ParamName);
            }
            Console.WriteLine("later " + Calc.Later(14).GetAwaiter().GetResult());
            int[] got = new int[2];
            Thread[] threads = new Thread[2];
            for (int t = 0; t < 2; t++)
            {
                int id = t + 1;
                threads[t] = new Thread(() => got[id - 1] = Calc.Work(id));
                threads[t].Start();
            }
            foreach (Thread t in threads) t.Join();
            Console.WriteLine("threads " + got[0] + " " + got[1]);
            // The attach test's mode: a round every 100 ms until FILE exists.
            if (args.Length == 2 && args[0] == "serve")
            {
                Console.WriteLine("serving " + Environment.ProcessId);
                for (int round = 0; !System.IO.File.Exists(args[1]); round++)
                {
                    Calc.Add(round, 1);
                    Calc.MakeHfa2(round, 1);
                    Thread.Sleep(100);
                }
                Console.WriteLine("served");
            }
            return 3;
        }
    }
}
