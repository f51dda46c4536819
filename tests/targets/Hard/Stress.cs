// Stress: CALLS calls of Hot(t, i) spread over THREADS threads (CALLS must be
// a multiple of THREADS). Each thread counts its own calls; the total is
// printed.
using System;
using System.Threading;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class Stress
    {
        public static int Run(long calls, int threadCount)
        {
            if (threadCount < 1 || calls % threadCount != 0)
            {
                Console.Error.WriteLine("stress: CALLS must be a multiple of THREADS");
                return 2;
            }
            long per = calls / threadCount;
            var counts = new long[threadCount];
            var sums = new long[threadCount];
            var threads = new Thread[threadCount];
            for (int k = 0; k < threadCount; k++)
            {
                int t = k;
                threads[k] = new Thread(() =>
                {
                    long c = 0, s = 0;
                    for (long i = 0; i < per; i++)
                    {
                        s += Hot(t, i, 0.5);
                        c++;
                    }
                    counts[t] = c;
                    sums[t] = s;
                }) { Name = "stress-" + k };
            }
            foreach (var th in threads)
            {
                th.Start();
            }
            foreach (var th in threads)
            {
                th.Join();
            }
            long total = 0, sum = 0;
            for (int k = 0; k < threadCount; k++)
            {
                total += counts[k];
                sum += sums[k];
            }
            Console.WriteLine("stress: hot=" + total + " threads=" + threadCount + " sum=" + sum);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Hot(int t, long i, double w) => i * 2 + t + (long)w;
    }
}
