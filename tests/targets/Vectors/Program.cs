// Vector-heavy code for tests/e2e/run_vectors.sh: the traced program must
// compute exactly what the untraced one does.
//
// Each round runs the same work and renders its results as text; the
// program prints the first round's text, then whether every later round
// gave the same text. Rounds go on for at least MIN_ROUNDS and at least
// SECONDS (the first argument, default 1.5) so that tiered compilation
// installs optimised code (where the JIT makes fast tail calls) while it
// runs; the output does not depend on how many rounds ran.
//
//   Outer(a, b) => Fix(a + b)      a fast tail call with Vector128 arguments
//                                  (the case the runtime's tail-call helper
//                                  broke: upper halves zeroed)
//   Outer256, Outer512             the same with Vector256 / Vector512
//   Many(d0..d9)                   more than 8 double arguments
//   Pair / PairF                   structs returned in xmm0:xmm1
//   span and string searching      IndexOf, IndexOfAny, SequenceEqual,
//                                  Contains, ToUpperInvariant, Ascii
//   BitOperations                  PopCount, LeadingZeroCount, RotateLeft
using System;
using System.Diagnostics;
using System.Globalization;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;
using System.Text;

namespace Vectors
{
    public struct Pair { public double A, B; }
    public struct PairF { public float X, Y; public int N; }

    public static class Vec
    {
        public static Vector128<byte> Fix(Vector128<byte> v) => v ^ Vector128.Create((byte)0x5A);
        public static Vector128<byte> Outer(Vector128<byte> a, Vector128<byte> b) => Fix(a + b);

        public static Vector256<int> Fix256(Vector256<int> v) => v * 3 - Vector256.Create(7);
        public static Vector256<int> Outer256(Vector256<int> a, Vector256<int> b) => Fix256(a + b);

        public static Vector512<long> Fix512(Vector512<long> v) => v + Vector512.Create(1L);
        public static Vector512<long> Outer512(Vector512<long> a, Vector512<long> b) => Fix512(a ^ b);

        public static Vector128<float> Scale(Vector128<float> v, float k) => v * k;
        public static Vector128<float> ScaleTail(Vector128<float> v, float k, Vector128<float> w) => Scale(v + w, k);

        public static double Many(double d0, double d1, double d2, double d3, double d4,
                                  double d5, double d6, double d7, double d8, double d9)
            => d0 + 2 * d1 + 3 * d2 + 4 * d3 + 5 * d4 + 6 * d5 + 7 * d6 + 8 * d7 + 9 * d8 + 10 * d9;

        public static double ManyTail(double d0, double d1, double d2, double d3, double d4,
                                      double d5, double d6, double d7, double d8, double d9)
            => Many(d9, d8, d7, d6, d5, d4, d3, d2, d1, d0);

        public static Pair MakePair(double a, double b) => new Pair { A = a * 1.5, B = b - 0.25 };
        public static Pair PairTail(double a, double b) => MakePair(b, a);
        public static PairF MakePairF(float x, float y, int n) => new PairF { X = x * 2, Y = y / 2, N = n + 1 };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Bits(ulong x) =>
            BitOperations.PopCount(x) * 1000 + BitOperations.LeadingZeroCount(x) * 10
            + (int)(BitOperations.RotateLeft(x, 7) & 7);
    }

    public static class Program
    {
        const int MIN_ROUNDS = 200;

        static string Render<T>(Vector128<T> v) where T : struct => v.ToString();

        static string Round(int round)
        {
            var sb = new StringBuilder();
            var a = Vector128.Create((byte)1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16);
            var b = Vector128.Create((byte)100);
            sb.Append("v128 ").Append(Vec.Outer(a, b)).Append('\n');
            var c = Vector256.Create(1, 2, 3, 4, 5, 6, 7, 8);
            sb.Append("v256 ").Append(Vec.Outer256(c, c)).Append('\n');
            var d = Vector512.Create(1L, 2, 3, 4, 5, 6, 7, 8);
            sb.Append("v512 ").Append(Vec.Outer512(d, Vector512.Create(0x100L))).Append('\n');
            var f = Vector128.Create(1.5f, -2f, 3.25f, 8f);
            sb.Append("scale ").Append(Vec.ScaleTail(f, 2f, f)).Append('\n');
            sb.Append("many ").Append(Vec.ManyTail(1, 2, 3, 4, 5, 6, 7, 8, 9, 10).ToString(CultureInfo.InvariantCulture)).Append('\n');
            Pair p = Vec.PairTail(3, 5);
            PairF q = Vec.MakePairF(1.25f, 9f, 41);
            sb.Append("pair ").Append(p.A.ToString(CultureInfo.InvariantCulture)).Append(' ')
              .Append(p.B.ToString(CultureInfo.InvariantCulture)).Append(' ')
              .Append(q.X.ToString(CultureInfo.InvariantCulture)).Append(' ')
              .Append(q.Y.ToString(CultureInfo.InvariantCulture)).Append(' ').Append(q.N).Append('\n');
            string text = "The quick brown fox jumps over the lazy dog; THE QUICK BROWN FOX 0123456789 " +
                          "and then some more text, long enough for the vectorised search paths.";
            ReadOnlySpan<char> span = text.AsSpan();
            sb.Append("search ").Append(span.IndexOf("lazy")).Append(' ')
              .Append(span.IndexOfAny('0', 'z')).Append(' ')
              .Append(span.LastIndexOf('o')).Append(' ')
              .Append(text.Contains("vectorised", StringComparison.Ordinal)).Append(' ')
              .Append(span.Slice(4, 20).SequenceEqual(text.AsSpan(4, 20))).Append('\n');
            sb.Append("upper ").Append(text.ToUpperInvariant()).Append('\n');
            byte[] ascii = Encoding.ASCII.GetBytes(text);
            sb.Append("ascii ").Append(System.Text.Ascii.IsValid(ascii)).Append(' ')
              .Append(Encoding.ASCII.GetString(ascii, 10, 30)).Append('\n');
            ulong bits = 0x0123_4567_89AB_CDEFul ^ (ulong)(round & 0);
            sb.Append("bits ").Append(Vec.Bits(bits)).Append(' ').Append(Vec.Bits(bits >> 13)).Append('\n');
            return sb.ToString();
        }

        public static int Main(string[] args)
        {
            double seconds = args.Length > 0 ? double.Parse(args[0], CultureInfo.InvariantCulture) : 1.5;
            var sw = Stopwatch.StartNew();
            string first = Round(0);
            bool same = true;
            for (int r = 1; r < MIN_ROUNDS || sw.Elapsed.TotalSeconds < seconds; r++)
            {
                if (Round(r) != first)
                {
                    same = false;
                }
            }
            Console.Write(first);
            Console.WriteLine("every round the same: " + same);
            return same ? 0 : 1;
        }
    }
}
