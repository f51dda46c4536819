// End-to-end target for clrtrace's percentiles and histograms
// (tests/e2e/run_percentiles.sh): Work.Wait(ms) sleeps ms milliseconds, called
// 50 times with 5, 45 times with 40 and 5 times with 200 (100 calls, in an
// order that mixes them), so that the 50th shortest call is a 5 ms one, the
// 90th a 40 ms one and the 99th a 200 ms one.
using System;
using System.Threading;

namespace Latency
{
    public static class Work
    {
        public static int Wait(int ms)
        {
            Thread.Sleep(ms);
            return ms;
        }
    }

    public static class Program
    {
        public static int Main()
        {
            int total = 0;
            for (int i = 0; i < 100; i++)
            {
                // i % 20: 0..9 -> 5 ms (50 calls), 10..18 -> 40 ms (45), 19 -> 200 ms (5)
                int k = i % 20;
                total += Work.Wait(k < 10 ? 5 : k < 19 ? 40 : 200);
            }
            Console.WriteLine("slept " + total + " ms");
            return 0;
        }
    }
}
