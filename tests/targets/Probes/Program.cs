// End-to-end target for clrtrace --at FILE:LINE (tests/e2e/run_lineprobe.sh):
// line probes at known lines of this file, and the values the locals have
// there, written by hand in the test from this source. The line numbers
// are the test's: keep them (the test names each line it probes).
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading.Tasks;

namespace Probes
{
    public struct Point
    {
        public int X;
        public int Y;
    }

    public sealed class Cart
    {
        private int _count;

        public Cart(int count) { _count = count; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public decimal Sum(decimal[] prices, decimal discount)
        {
            decimal total = 0m;
            for (int i = 0; i < prices.Length; i++)
            {
                total += prices[i];
            }
            string password = "hunter2";
            Point p = new Point { X = _count, Y = 7 };
            Console.WriteLine("sum " + total + " " + password.Length + " " + p.X);
            return total - discount;
        }
    }

    public static class Work
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Classify(int n)
        {
            int score = n * 3;
            // (no code on this line: a probe here goes to the next line)
            if (score > 10)
                return score;
            return -score;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> TotalAsync(int n)
        {
            int total = 0;
            for (int i = 1; i <= n; i++)
            {
                await Task.Yield();
                total += i;
            }
            return total;
        }

        public static IEnumerable<int> Squares(int n)
        {
            for (int k = 1; k <= n; k++)
            {
                int sq = k * k;
                yield return sq;
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Guarded(int x)
        {
            try
            {
                if (x < 0)
                    throw new ArgumentException("negative");
                return x;
            }
            catch (ArgumentException e)
            {
                int fallback = -x;
                Console.WriteLine("guarded " + e.Message + " " + fallback);
                return fallback;
            }
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            var cart = new Cart(3);
            decimal sum = cart.Sum(new[] { 1.5m, 2.25m, 3m }, 0.75m);
            int a = Work.Classify(2), b = Work.Classify(5);
            int total = Work.TotalAsync(3).Result;
            int squares = 0;
            foreach (int s in Work.Squares(3))
                squares += s;
            int g = Work.Guarded(-4) + Work.Guarded(6);
            Console.WriteLine("sum=" + sum + " a=" + a + " b=" + b + " total=" + total +
                              " squares=" + squares + " g=" + g);
            return sum == 6m && a == -6 && b == 15 && total == 6 && squares == 14 && g == 10 ? 0 : 1;
        }
    }
}
