// Target of tests/e2e/run_trust.sh. Each mode prints its own counts, which
// the test compares with the trace:
//
//   parent N K     N calls of Work, then four children (`dotnet Tree.dll
//                  child K`): two one after the other, two at once; then N
//                  more calls of Work. Prints "parent: calls=2N children=4".
//   child K        K calls of Work; prints "child: calls=K".
//   ticker PAUSE   calls Tick forever, sleeping PAUSE ms after each (0: no
//                  sleep); every 50 ms prints "t=MS calls=N" (MS since start,
//                  N calls of Tick made so far). Ends only when killed.
//   burst T K      T threads, K calls of Burst each; prints "burst: calls=T*K".
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Tree
{
    public static class Program
    {
        static long s_sum;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Work(int i) { s_sum += i; return i * 2; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Tick(long i) => i + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Burst(int thread, int i) => thread ^ i;

        static int Child(string k)
        {
            var psi = new ProcessStartInfo("dotnet") { UseShellExecute = false };
            psi.ArgumentList.Add(typeof(Program).Assembly.Location);
            psi.ArgumentList.Add("child");
            psi.ArgumentList.Add(k);
            var p = Process.Start(psi);
            return p == null ? -1 : p.Id;
        }

        public static int Main(string[] args)
        {
            switch (args.Length > 0 ? args[0] : "")
            {
                case "parent":
                {
                    int n = int.Parse(args[1]);
                    for (int i = 0; i < n; i++) Work(i);
                    for (int c = 0; c < 2; c++)
                    {
                        Process.GetProcessById(Child(args[2])).WaitForExit();
                    }
                    var a = Process.GetProcessById(Child(args[2]));
                    var b = Process.GetProcessById(Child(args[2]));
                    a.WaitForExit();
                    b.WaitForExit();
                    for (int i = 0; i < n; i++) Work(i);
                    Console.WriteLine("parent: calls=" + 2 * n + " children=4");
                    return 0;
                }
                case "child":
                {
                    int k = int.Parse(args[1]);
                    for (int i = 0; i < k; i++) Work(i);
                    Console.WriteLine("child: calls=" + k);
                    return 0;
                }
                case "ticker":
                {
                    int pause = int.Parse(args[1]);
                    var sw = Stopwatch.StartNew();
                    long calls = 0, next = 0;
                    for (;;)
                    {
                        calls = Tick(calls);
                        if (pause > 0) Thread.Sleep(pause);
                        long ms = sw.ElapsedMilliseconds;
                        if (ms >= next)
                        {
                            Console.WriteLine("t=" + ms + " calls=" + calls);
                            Console.Out.Flush();
                            next = ms + 50;
                        }
                    }
                }
                case "burst":
                {
                    int t = int.Parse(args[1]), k = int.Parse(args[2]);
                    var threads = new Thread[t];
                    for (int j = 0; j < t; j++)
                    {
                        int id = j;
                        threads[j] = new Thread(() => { for (int i = 0; i < k; i++) Burst(id, i); });
                        threads[j].Start();
                    }
                    foreach (var th in threads) th.Join();
                    Console.WriteLine("burst: calls=" + (long)t * k);
                    return 0;
                }
                default:
                    Console.Error.WriteLine("usage: Tree parent N K | child K | ticker PAUSE | burst T K");
                    return 2;
            }
        }
    }
}
