// GcStress: THREADS threads each call Work(text, numbers, box) and
// Count(box, new[] { box, box }) PER times with
// objects, strings and arrays made fresh for each call, while another thread
// forces collections (GC.Collect and large allocations) the whole time. Each
// thread sums what Work computes from its arguments; the total is printed,
// so a probe that let an object move, or broke a call, changes the output.
using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Hard
{
    public sealed class Box
    {
        public int Value;
        public string Name = "";
    }

    public static class GcStress
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Work(string text, int[] numbers, Box box)
        {
            long s = text.Length + box.Value + box.Name.Length;
            foreach (int n in numbers)
                s += n;
            return s;
        }

        // Generic code shared by every reference type (System.__Canon): its
        // probes tell the instantiation from type handles, under GC too.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Count<T>(T first, T[] all) where T : class
        {
            return all.Length + (first == null ? 0 : 1);
        }

        public static int Run(int per, int threadCount)
        {
            var sums = new long[threadCount];
            var threads = new Thread[threadCount];
            int done = 0;
            var collector = new Thread(() =>
            {
                while (Volatile.Read(ref done) == 0)
                {
                    var big = new byte[4 << 20];
                    big[big.Length - 1] = 1;
                    GC.Collect(2, GCCollectionMode.Forced, true, true);
                }
            });
            collector.Start();
            for (int k = 0; k < threadCount; k++)
            {
                int t = k;
                threads[k] = new Thread(() =>
                {
                    long s = 0;
                    for (int i = 0; i < per; i++)
                    {
                        var numbers = new int[] { i, t, 3 };
                        var box = new Box { Value = i % 7, Name = "box" + (i % 10) };
                        s += Work("call " + i, numbers, box);
                        s += Count(box, new[] { box, box });
                    }
                    sums[t] = s;
                });
                threads[k].Start();
            }
            foreach (var th in threads)
                th.Join();
            Volatile.Write(ref done, 1);
            collector.Join();
            long total = 0;
            foreach (long s in sums)
                total += s;
            Console.WriteLine("gcstress: calls=" + (long)per * threadCount + " total=" + total);
            return 0;
        }
    }
}
