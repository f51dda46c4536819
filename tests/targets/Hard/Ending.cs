// Ways a process ends: Environment.Exit(5) from 20 frames down, an
// unhandled exception from 20 frames down, and a loop that waits for a
// signal (SIGTERM, SIGINT) after printing "ready". Spin makes N quick calls
// and exits with 3 (a run that writes a large trace).
using System;
using System.Threading;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class Ending
    {
        public static int Exit()
        {
            Console.WriteLine("exit: going down");
            return Down(20, false);
        }

        public static int Unhandled()
        {
            Console.WriteLine("unhandled: going down");
            return Down(20, true);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Down(int n, bool raise)
        {
            if (n == 0)
            {
                if (raise)
                {
                    throw new InvalidOperationException("unhandled from depth 20");
                }
                Console.Out.Flush();
                Environment.Exit(5);
            }
            return Down(n - 1, raise) + 1;
        }

        private static volatile int s_ticks;

        public static int Loop()
        {
            var ticker = new Thread(() =>
            {
                for (int i = 0; ; i++)
                {
                    Tick(-i);
                    Thread.Sleep(7);
                }
            }) { IsBackground = true, Name = "ticker" };
            ticker.Start();
            for (int i = 0; ; i++)
            {
                Tick(i);
                if (i == 20)
                {
                    Console.WriteLine("ready");
                    Console.Out.Flush();
                }
                Thread.Sleep(5);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Tick(int i)
        {
            s_ticks++;
            return i;
        }

        public static int Spin(int n)
        {
            long sum = 0;
            for (int i = 0; i < n; i++)
            {
                sum += Step(i, "spinning");
            }
            Console.WriteLine("spin: n=" + n + " sum=" + sum);
            return 3;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Step(int i, string label) => i + label.Length;
    }
}
