// End-to-end target of tests/e2e/run_fastpath.sh. Under the fast-path hooks
// (`clrtrace run --no-args`) the JIT calls our assembly stubs in the middle
// of each method's prolog and epilog, with the arguments and the return value
// live in registers. Every result below depends on every argument and return
// register the System V ABI uses (rdi rsi rdx rcx r8 r9, xmm0-xmm7, stack
// arguments, rax:rdx, xmm0:xmm1, mixed pairs, a return buffer), and results
// feed the next calls, so a register the stubs fail to keep changes what the
// program prints. The expected output is the untraced run's.
//
// The call tree is fixed too (single thread, no input): run_fastpath.sh
// compares the fast path's tree with the slow path's, and checks the counts
// written here.
using System;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace FastPath
{
    public struct Pair { public long A, B; }             // INTEGER, INTEGER: rax:rdx
    public struct DPair { public double X, Y; }          // SSE, SSE: xmm0:xmm1
    public struct LongDouble { public long A; public double B; }   // INTEGER, SSE: rax:xmm0
    public struct DoubleLong { public double A; public long B; }   // SSE, INTEGER: xmm0:rax
    public struct FloatQuad { public float A, B, C, D; } // SSE, SSE (two floats each)
    public struct Big { public long A, B, C, D; }        // 32 bytes: return buffer

    public interface IOp
    {
        long Apply(long x, double y);
    }

    public class Doubler : IOp
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public virtual long Apply(long x, double y) => 2 * x + (long)y;
    }

    public sealed class Tripler : Doubler
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public override long Apply(long x, double y) => 3 * x + (long)(y * 2);
    }

    public static class Calc
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int AddInt(int a, int b) => a + b;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long MulLong(long a, long b) => a * b;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Hyp(double x, double y) => Math.Sqrt(x * x + y * y);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Half(float f) => f / 2;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Pair MakePair(long a, long b) => new Pair { A = a * 3, B = b - 7 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static DPair MakeDPair(double x, double y) => new DPair { X = x / 4, Y = y * 1.5 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static LongDouble MakeLongDouble(long a, double b) => new LongDouble { A = a + 11, B = b * 0.25 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static DoubleLong MakeDoubleLong(double a, long b) => new DoubleLong { A = a - 0.5, B = b ^ 0x5A5A };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static FloatQuad MakeQuad(float a, float b, float c, float d) =>
            new FloatQuad { A = a + d, B = b * c, C = c - a, D = d / b };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Big MakeBig(long k) => new Big { A = k, B = k * k, C = k * k * k, D = -k };

        // Ten integer arguments: six in registers, four on the stack.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long ManyInts(int a, long b, int c, long d, int e, long f, int g, long h, int i, long j) =>
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;

        // Ten doubles: eight in xmm0-xmm7, two on the stack.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double ManyDoubles(double a, double b, double c, double d, double e, double f,
                                         double g, double h, double i, double j) =>
            a + 2 * b + 3 * c + 4 * d + 5 * e + 6 * f + 7 * g + 8 * h + 9 * i + 10 * j;

        // Everything at once: integer and float registers both full, structs
        // in registers and on the stack, a string, a decimal.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Everything(int a, double b, long c, float d, Pair p, DPair q, string s,
                                        LongDouble r, decimal m, double e, int f, float g, Big big,
                                        double h, long i)
        {
            return a + b + c + d + p.A + p.B + q.X + q.Y + s.Length + r.A + r.B + (double)m + e + f + g +
                   big.A + big.D + h + i;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static decimal Money(decimal a, decimal b) => a * b + 0.01m;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Chain(double x, int depth) => depth == 0 ? x : Chain(x * 1.5 + depth, depth - 1) - 0.25;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Throws(int n)
        {
            if (n > 2)
                throw new InvalidOperationException("n=" + n);
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Guarded(int n)
        {
            try
            {
                return Throws(n) * 10;
            }
            catch (InvalidOperationException e)
            {
                return -e.Message.Length;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static T Echo<T>(T value) => value;
    }

    public static class Program
    {
        private static string D(double v) => v.ToString("R", CultureInfo.InvariantCulture);
        private static string F(float v) => v.ToString("R", CultureInfo.InvariantCulture);

        public static int Main(string[] args)
        {
            int sum = Calc.AddInt(40, 2);
            Console.WriteLine("int " + sum);
            long prod = Calc.MulLong(sum, -123456789L);
            Console.WriteLine("long " + prod);
            double hyp = Calc.Hyp(3.0, sum);
            Console.WriteLine("double " + D(hyp));
            float half = Calc.Half((float)hyp);
            Console.WriteLine("float " + F(half));

            Pair p = Calc.MakePair(prod, sum);
            Console.WriteLine("pair " + p.A + " " + p.B);
            DPair q = Calc.MakeDPair(hyp, half);
            Console.WriteLine("dpair " + D(q.X) + " " + D(q.Y));
            LongDouble ld = Calc.MakeLongDouble(p.B, q.Y);
            Console.WriteLine("longdouble " + ld.A + " " + D(ld.B));
            DoubleLong dl = Calc.MakeDoubleLong(ld.B, ld.A);
            Console.WriteLine("doublelong " + D(dl.A) + " " + dl.B);
            FloatQuad fq = Calc.MakeQuad(half, 1.25f, (float)dl.A, -3.5f);
            Console.WriteLine("quad " + F(fq.A) + " " + F(fq.B) + " " + F(fq.C) + " " + F(fq.D));
            Big big = Calc.MakeBig(dl.B % 1000);
            Console.WriteLine("big " + big.A + " " + big.B + " " + big.C + " " + big.D);

            long many = Calc.ManyInts(1, 2, 3, 4, 5, 6, 7, 8, 9, big.A);
            Console.WriteLine("manyints " + many);
            double manyd = Calc.ManyDoubles(0.5, 1.5, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5, q.X, q.Y);
            Console.WriteLine("manydoubles " + D(manyd));
            decimal money = Calc.Money(19.99m, (decimal)half);
            Console.WriteLine("decimal " + money.ToString(CultureInfo.InvariantCulture));
            double all = Calc.Everything(sum, hyp, prod, half, p, q, "clrtrace", ld, money, manyd, 7,
                                         fq.B, big, dl.A, many);
            Console.WriteLine("everything " + D(all));

            IOp op = new Doubler();
            long viaInterface = op.Apply(many, all);
            Doubler virt = new Tripler();
            long viaVirtual = virt.Apply(viaInterface, hyp);
            Console.WriteLine("interface " + viaInterface + " virtual " + viaVirtual);

            Console.WriteLine("fib " + Calc.Fib(6));
            Console.WriteLine("chain " + D(Calc.Chain(1.0, 5)));
            Console.WriteLine("guarded " + Calc.Guarded(2) + " " + Calc.Guarded(5));
            Console.WriteLine("generic " + Calc.Echo(17) + " " + Calc.Echo("text") + " " + D(Calc.Echo(2.5)));
            return (int)(viaVirtual & 0x3F);
        }
    }
}
