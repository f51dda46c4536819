// The calling-convention cases the runtime's own slow-path ELT test checks,
// written again here (System V AMD64: where each struct travels decides
// where the profiler's argument range points):
//   - scalars in integer and SSE registers;
//   - a {int, double} struct (one INTEGER and one SSE eightbyte: copied
//     from two register files into the runtime's scratch buffer);
//   - a 64-byte struct (passed on the stack);
//   - an integer-only struct (two INTEGER eightbytes);
//   - float/double structs of 2, 3 and 4 fields, alone, paired and
//     interleaved with scalars (SSE eightbytes; 24 and 32 bytes go on the stack);
//   - a scalar plus nine {int, double} structs (registers run out, the rest
//     go on the stack);
//   - float and double returns (xmm0);
//   - struct returns mixing INTEGER and SSE eightbytes (rax/rdx and xmm0/xmm1,
//     which the runtime copies back together), and a 64-byte return (buffer).
// All values are exact in binary, so their text is known.
using System.Runtime.CompilerServices;

namespace Demo
{
    public struct IntDouble { public int I; public double D; }
    public struct Big64 { public IntDouble A, B, C, D; }
    public struct IntsOnly { public int A; public int B; public long C; }
    public struct Fp32x2 { public float X, Y; }
    public struct Fp32x3 { public float X, Y, Z; }
    public struct Fp32x4 { public float X, Y, Z, W; }
    public struct Fp64x2 { public double X, Y; }
    public struct Fp64x3 { public double X, Y, Z; }
    public struct Fp64x4 { public double X, Y, Z, W; }
    public struct IntegerSse { public long A; public double B; }
    public struct SseInteger { public double A; public long B; }
    public struct MixedSse { public int A; public float B; public double C; }
    public struct SseMixed { public double A; public int B; public float C; }
    public struct MixedMixed { public int A; public float B; public int C; public float D; }

    public static class Abi
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int SimpleArgs(int i, float f, string s) => i + s.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double TakeIntDouble(IntDouble v) => v.I + v.D;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int TakeBig(Big64 v) => v.A.I + v.B.I + v.C.I + v.D.I;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long TakeInts(IntsOnly v) => v.A + v.B + v.C;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Fp32x2Alone(Fp32x2 a) => a.X + a.Y;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Fp32x2Pair(Fp32x2 a, Fp32x2 b) => a.X + b.Y;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp32x2Mixed(int i, Fp32x2 a, double d, Fp32x2 b, long l) => i + a.X + d + b.Y + l;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Fp32x3Alone(Fp32x3 a) => a.X + a.Y + a.Z;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Fp32x3Pair(Fp32x3 a, Fp32x3 b) => a.Z + b.Z;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp32x3Mixed(int i, Fp32x3 a, double d, Fp32x3 b, long l) => i + a.Z + d + b.Z + l;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Fp32x4Alone(Fp32x4 a) => a.X + a.W;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float Fp32x4Pair(Fp32x4 a, Fp32x4 b) => a.W + b.W;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp32x4Mixed(int i, Fp32x4 a, double d, Fp32x4 b, long l) => i + a.W + d + b.W + l;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x2Alone(Fp64x2 a) => a.X + a.Y;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x2Pair(Fp64x2 a, Fp64x2 b) => a.Y + b.Y;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x2Mixed(int i, Fp64x2 a, double d, Fp64x2 b, long l) => i + a.Y + d + b.Y + l;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x3Alone(Fp64x3 a) => a.X + a.Z;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x3Pair(Fp64x3 a, Fp64x3 b) => a.Z + b.Z;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x3Mixed(int i, Fp64x3 a, double d, Fp64x3 b, long l) => i + a.Z + d + b.Z + l;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x4Alone(Fp64x4 a) => a.X + a.W;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x4Pair(Fp64x4 a, Fp64x4 b) => a.W + b.W;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Fp64x4Mixed(int i, Fp64x4 a, double d, Fp64x4 b, long l) => i + a.W + d + b.W + l;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int NineStructs(int n, IntDouble a, IntDouble b, IntDouble c, IntDouble d, IntDouble e,
                                      IntDouble f, IntDouble g, IntDouble h, IntDouble i)
            => n + a.I + b.I + c.I + d.I + e.I + f.I + g.I + h.I + i.I;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static float RetFloat(float a, float b) => a * b;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double RetDouble(double a, double b) => a * b;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static IntegerSse MakeIntegerSse(long a, double b) => new IntegerSse { A = a, B = b };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static SseInteger MakeSseInteger(double a, long b) => new SseInteger { A = a, B = b };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static MixedSse MakeMixedSse(int a, float b, double c) => new MixedSse { A = a, B = b, C = c };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static SseMixed MakeSseMixed(double a, int b, float c) => new SseMixed { A = a, B = b, C = c };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static MixedMixed MakeMixedMixed(int a, float b, int c, float d) => new MixedMixed { A = a, B = b, C = c, D = d };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Fp32x2 MakeFp32x2(float x, float y) => new Fp32x2 { X = x, Y = y };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Fp64x2 MakeFp64x2(double x, double y) => new Fp64x2 { X = x, Y = y };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static IntsOnly MakeInts(int a, int b, long c) => new IntsOnly { A = a, B = b, C = c };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Big64 MakeBig(int k) => new Big64
        {
            A = new IntDouble { I = k, D = k + 0.5 },
            B = new IntDouble { I = k + 1, D = k + 1.5 },
            C = new IntDouble { I = k + 2, D = k + 2.5 },
            D = new IntDouble { I = k + 3, D = k + 3.5 },
        };
    }
}
