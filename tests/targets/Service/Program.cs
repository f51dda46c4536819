// A service for `clrtrace run|record -p PID` (tests/e2e/run_attach.sh).
//
//   Service run SECONDS THREADS   THREADS workers call Handlers.Handle in a loop
//                                 (a 1 ms sleep between calls) for SECONDS
//                                 seconds; prints "ready PID" once they run,
//                                 and at the end "done", then the checksum of
//                                 what every call returned; exit code 7.
//   Service spin SECONDS          one thread calls Handlers.Add as fast as it
//                                 can for SECONDS seconds, in rounds of 1e6
//                                 calls; prints "ready PID", then each round's
//                                 end (ms since the start) and time in ns per
//                                 call, "round MS NS" (bench/run_attach.sh).
//
//   Service busy SECONDS THREADS FLAG
//                                 THREADS workers call Handle, Echo and
//                                 Box.Get without pause, and one more thread
//                                 allocates and forces collections, for
//                                 SECONDS seconds or until the file FLAG
//                                 exists; prints "ready PID", then
//                                 "done" and whether every answer was right
//                                 (attach and detach under load).
//   Service late SECONDS FLAG     prints "ready PID"; once the file FLAG exists,
//                                 loads ServicePlugin (its first use) and
//                                 calls Plugin.Greeter.Greet("ann", N) every
//                                 ms until SECONDS have passed; prints
//                                 "greeted" and whether every answer was right.
//
// What a call gets and returns is fixed by the source: Handle(worker=W,
// n=N, tag="w" + W, order=Order{Id=N, Amount=N * 0.5}) returns 2 * N + W; so
// the checksum does not depend on timing: each worker makes the same calls
// (N = 0, 1, 2, ... until the time is up) and the check is per call. Each
// worker also calls Handlers.Validate(N), which throws for N % 50 == 49 (the
// worker catches it). And generic code: Echo<string>(tag) -> tag,
// Box<long>(N).Get() -> N.
using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Svc;

public sealed class Order
{
    public int Id;
    public decimal Amount;
}

public static class Handlers
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Handle(int worker, long n, string tag, Order order)
    {
        return 2 * n + worker + (tag.Length - tag.Length) + (order.Id - order.Id);
    }

    // Throws for every 50th n (49, 99, ...): the worker catches it.
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Validate(long n)
    {
        if (n % 50 == 49)
            throw new InvalidOperationException("n=" + n);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public static long Add(long a, long b) => a + b;

    // Generic code: shared by reference types (Echo<string>), and a generic
    // class's method (Box<long>.Get).
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static T Echo<T>(T x) => x;
}

public sealed class Box<T>
{
    private readonly T _value;

    public Box(T value) => _value = value;

    [MethodImpl(MethodImplOptions.NoInlining)]
    public T Get() => _value;
}

public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length == 3 && args[0] == "run")
            return Run(int.Parse(args[1]), int.Parse(args[2]));
        if (args.Length == 4 && args[0] == "busy")
            return Busy(int.Parse(args[1]), int.Parse(args[2]), args[3]);
        if (args.Length == 3 && args[0] == "late")
            return Late(int.Parse(args[1]), args[2]);
        if (args.Length == 2 && args[0] == "spin")
            return Spin(int.Parse(args[1]));
        Console.Error.WriteLine("usage: Service run SECONDS THREADS | spin SECONDS");
        return 2;
    }

    static int Run(int seconds, int threads)
    {
        var until = Stopwatch.StartNew();
        var sums = new long[threads];
        var counts = new long[threads];
        var workers = new Thread[threads];
        using var started = new CountdownEvent(threads);
        for (int w = 0; w < threads; w++)
        {
            int me = w;
            workers[w] = new Thread(() =>
            {
                started.Signal();
                Loop(me, seconds, until, sums, counts);
            }) { Name = "worker-" + me };
            workers[w].Start();
        }
        started.Wait();
        Console.WriteLine($"ready {Environment.ProcessId}");
        foreach (var t in workers)
            t.Join();
        Console.WriteLine("done");
        // Worker w made calls n = 0 .. c-1: the sum of 2n + w is c(c-1) + c*w.
        bool right = true;
        for (int w = 0; w < threads; w++)
            right &= sums[w] == counts[w] * (counts[w] - 1) + counts[w] * w;
        Console.WriteLine(right ? "checksums right" : "checksums WRONG");
        return 7;
    }

    // Runs while clrtrace attaches: a frame entered before its rewrite.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static void Loop(int me, int seconds, Stopwatch until, long[] sums, long[] counts)
    {
        string tag = "w" + me;
        for (long n = 0; until.Elapsed.TotalSeconds < seconds; n++)
        {
            var order = new Order { Id = (int)n, Amount = n * 0.5m };
            long r = Handlers.Handle(me, n, tag, order);
            if (r != 2 * n + me)
                throw new InvalidOperationException($"Handle({me}, {n}) returned {r}");
            if (!ReferenceEquals(Handlers.Echo(tag), tag) || new Box<long>(n).Get() != n)
                throw new InvalidOperationException("generic code");
            try
            {
                Handlers.Validate(n);
            }
            catch (InvalidOperationException e) when (e.Message == "n=" + n)
            {
            }
            sums[me] += r;
            counts[me]++;
            Thread.Sleep(1);
        }
    }

    static volatile bool s_stop;

    static int Busy(int seconds, int threads, string flag)
    {
        var clock = Stopwatch.StartNew();
        int wrong = 0;
        var workers = new Thread[threads + 1];
        for (int w = 0; w < threads; w++)
        {
            int me = w;
            workers[w] = new Thread(() =>
            {
                string tag = "w" + me;
                for (long n = 0; !s_stop; n++)
                {
                    var order = new Order { Id = (int)n, Amount = n * 0.5m };
                    if (Handlers.Handle(me, n, tag, order) != 2 * n + me ||
                        !ReferenceEquals(Handlers.Echo(tag), tag) || new Box<long>(n).Get() != n)
                        Interlocked.Increment(ref wrong);
                }
            });
        }
        workers[threads] = new Thread(() =>
        {
            while (clock.Elapsed.TotalSeconds < seconds && !System.IO.File.Exists(flag))
            {
                var junk = new byte[1 << 20];
                GC.KeepAlive(junk);
                GC.Collect();
                Thread.Sleep(5);
            }
            s_stop = true;
        });
        foreach (var t in workers)
            t.Start();
        Console.WriteLine($"ready {Environment.ProcessId}");
        foreach (var t in workers)
            t.Join();
        Console.WriteLine("done");
        Console.WriteLine(wrong == 0 ? "every answer right" : $"{wrong} answers WRONG");
        return 0;
    }

    static int Late(int seconds, string flag)
    {
        var clock = Stopwatch.StartNew();
        Console.WriteLine($"ready {Environment.ProcessId}");
        while (!System.IO.File.Exists(flag) && clock.Elapsed.TotalSeconds < seconds)
            Thread.Sleep(10);
        bool right = true;
        for (int n = 0; clock.Elapsed.TotalSeconds < seconds; n++)
        {
            right &= Greet(n);
            Thread.Sleep(1);
        }
        Console.WriteLine(right ? "greeted" : "greeted WRONG");
        return 0;
    }

    // The first use of ServicePlugin: its module loads when this compiles.
    [MethodImpl(MethodImplOptions.NoInlining)]
    static bool Greet(int n) => Plugin.Greeter.Greet("ann", n) == "hello ann #" + n;

    static int Spin(int seconds)
    {
        var clock = Stopwatch.StartNew();
        Console.WriteLine($"ready {Environment.ProcessId}");
        long acc = 0;
        const int round = 1_000_000;
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            long t0 = Stopwatch.GetTimestamp();
            for (int i = 0; i < round; i++)
                acc = Handlers.Add(acc, i);
            double ns = (Stopwatch.GetTimestamp() - t0) * 1e9 / Stopwatch.Frequency / round;
            Console.WriteLine($"round {clock.ElapsedMilliseconds} {ns:F2}");
        }
        Console.WriteLine(acc > 0 ? "done" : "done?");
        return 0;
    }
}
