// The calls below happen in this order. Call numbers (for --after) count
// every call of this program's own code in order of entry:
//   main thread:  1 Main
//                 2 Chain.Level1(1)  3 Chain.Level2(2)  4 Chain.Level3(3)  5 Chain.Level4(4)
//                 6 Timing.Slow(100) 7 Timing.Quick(1)  8 Timing.SlowChild(60)  9 Timing.Quick(2)
//                10 Gate.Run(5)     11 Inner.Work(5)
//   "gate-helper" thread, started and joined inside Gate.Run(5):
//                12 Gate.Helper()   13 Inner.Work(8)
//   main thread: 14 Inner.Work(100)
//                15 FiltLib.Calc.Twice(21)  16 FiltLib.Calc.Add(21, 21)
//   "second-gate" thread: 17 Program.Second()  18 Gate.Run(6)  19 Inner.Work(6)
//   "gate-helper" thread, inside Gate.Run(6): 20 Gate.Helper()  21 Inner.Work(8)
// Threads start from static methods (no lambdas: no compiler-generated
// closure classes whose calls would be traced too).
using System;
using System.Threading;

namespace Filt
{
    public static class Chain
    {
        public static int Level1(int n) => Level2(n + 1) + 1;
        public static int Level2(int n) => Level3(n + 1) + 1;
        public static int Level3(int n) => Level4(n + 1) + 1;
        public static int Level4(int n) => n * 10;
    }

    public static class Timing
    {
        // Slow lasts at least ms milliseconds; SlowChild at least ms2.
        public static int Slow(int ms)
        {
            int a = Quick(1);
            int b = SlowChild(60);
            int c = Quick(2);
            Thread.Sleep(ms - 60);
            return a + b + c;
        }

        public static int SlowChild(int ms2)
        {
            Thread.Sleep(ms2);
            return 7;
        }

        public static int Quick(int k) => k + 1;
    }

    public static class Inner
    {
        public static int Work(int w) => w * 2;
    }

    public static class Gate
    {
        // Runs Work(n) on this thread, and Work(8) on another thread while
        // Run is still running here: a gate per thread does not open there.
        private static int s_other;

        public static int Run(int n)
        {
            int r = Inner.Work(n);
            var t = new Thread(Helper);
            t.Name = "gate-helper";
            t.Start();
            t.Join();
            return r + s_other;
        }

        public static void Helper()
        {
            s_other = Inner.Work(8);
        }
    }

    public static class Program
    {
        private static int s_second;

        public static void Second()
        {
            s_second = Gate.Run(6);
        }

        public static int Main(string[] args)
        {
            int r = Chain.Level1(1);          // 1 + 1 + 1 + 40 = 43
            r += Timing.Slow(100);            // 2 + 7 + 3 = 12
            r += Gate.Run(5);                 // 10 + 16 = 26
            r += Inner.Work(100);             // 200
            r += FiltLib.Calc.Twice(21);      // 42
            var t = new Thread(Second);
            t.Name = "second-gate";
            t.Start();
            t.Join();
            r += s_second;                    // 12 + 16 = 28
            Console.WriteLine($"result {r}"); // 43 + 12 + 26 + 200 + 42 + 28 = 351
            return r % 100;                   // 51
        }
    }
}
