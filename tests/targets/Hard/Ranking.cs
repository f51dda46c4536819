// "ranking": functions whose own (self) time is known from the source, for
// tests/e2e/run_held.sh: Slow spins 400 ms, Medium 200 ms, Chatty makes 50000
// calls of Tiny and little else (their text, ~5 MB, outgrows the writer's
// 1 MiB output buffer). However slowly the tracer's writer drains,
// a ranking by self time must read Slow, Medium, then the others.
using System.Diagnostics;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class Ranking
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Slow()
        {
            long n = 0;
            var sw = Stopwatch.StartNew();
            while (sw.Elapsed.TotalMilliseconds < 400)
                n++;
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Medium()
        {
            long n = 0;
            var sw = Stopwatch.StartNew();
            while (sw.Elapsed.TotalMilliseconds < 200)
                n++;
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Tiny(int i) => i + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Chatty()
        {
            int s = 0;
            for (int i = 0; i < 50000; i++)
                s += Tiny(i);
            return s;
        }

        public static int Run()
        {
            int c = Chatty();
            long a = Slow(), b = Medium();
            System.Console.WriteLine("ranking: chatty=" + c + " spun=" + (a > 0 && b > 0));
            return 0;
        }
    }
}
