// Threads: 16 named threads, thread-pool work items and Parallel.For, all
// calling Work(tid, i) with the OS id of the thread they run on, so each of
// Work's trace lines can be checked against its TID column. The program
// counts Work's calls itself and prints the count.
using System;
using System.Threading;
using System.Threading.Tasks;
using System.Runtime.CompilerServices;

namespace Hard
{
    public static class Threads
    {
        public const int ThreadCount = 16, PerThread = 2000;
        public const int PoolItems = 64, PerItem = 100;
        public const int ParallelIterations = 4000;

        private static long s_work;
        private static int s_badNames;

        public static int Run()
        {
            // 16 named threads.
            var threads = new Thread[ThreadCount];
            for (int k = 0; k < ThreadCount; k++)
            {
                threads[k] = new Thread(ThreadMain) { Name = "worker-" + k.ToString("00") };
            }
            for (int k = 0; k < ThreadCount; k++)
            {
                threads[k].Start(k);
            }
            foreach (var t in threads)
            {
                t.Join();
            }
            long afterThreads = Interlocked.Read(ref s_work);

            // The thread pool.
            using (var done = new CountdownEvent(PoolItems))
            {
                for (int k = 0; k < PoolItems; k++)
                {
                    ThreadPool.QueueUserWorkItem(PoolItem, (k, done), preferLocal: false);
                }
                done.Wait();
            }
            long afterPool = Interlocked.Read(ref s_work);

            // Parallel.For (the calling thread takes part too).
            Parallel.For(0, ParallelIterations, ParallelBody);
            long total = Interlocked.Read(ref s_work);

            Console.WriteLine("threads: explicit=" + afterThreads + " pool=" + (afterPool - afterThreads)
                              + " parallel=" + (total - afterPool) + " work=" + total + " bad-names=" + s_badNames);
            return 0;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Work(int tid, int i)
        {
            Interlocked.Increment(ref s_work);
            return (long)tid * 100000 + i;
        }

        // Called once by each named thread with its name and OS id.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Named(string name, int tid) => name.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void ThreadMain(object state)
        {
            int k = (int)state;
            int tid = Native.Tid();
            string name = Thread.CurrentThread.Name;
            if (name != "worker-" + k.ToString("00"))
            {
                Interlocked.Increment(ref s_badNames);
            }
            Named(name, tid);
            for (int i = 0; i < PerThread; i++)
            {
                Work(tid, i);
            }
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void PoolItem((int k, CountdownEvent done) state)
        {
            int tid = Native.Tid();
            for (int i = 0; i < PerItem; i++)
            {
                Work(tid, state.k * PerItem + i);
            }
            state.done.Signal();
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static void ParallelBody(int i)
        {
            Work(Native.Tid(), i);
        }
    }
}
