// The benchmark workload of bench/run_trace.sh: a call-heavy loop mixing int,
// double, string and struct arguments, recursion, virtual and interface
// calls. Every method is [NoInlining] so the untraced run makes the same
// calls as the traced ones (the profiler disables inlining).
//
//   dotnet Workload.dll calls N        about N calls on the main thread; prints
//                                      "calls=C ns_per_call=X sum=S"
//   dotnet Workload.dll activity N     the same calls under a W3C Activity
//   dotnet Workload.dll threads T N    T threads making about N calls each; prints
//                                      "calls=C ... vmhwm_kib=K" (peak RSS)
//   dotnet Workload.dll objects N      about N calls passing objects: a
//                                      three-level object, a List<int> of 100,
//                                      a Dictionary<string, int> of 20; prints
//                                      "calls=C ns_per_call=X sum=S"
//   dotnet Workload.dll objects N busy the same after a burst of other calls
//   dotnet Workload.dll probe N        N calls of Values.Mix (a line probe's
//                                      cost); also prints alloc_per_call
//   dotnet Workload.dll hello          prints "hello" (start-up time)
//   dotnet Workload.dll exit N         N-deep recursion, then Environment.Exit(5)
//                                      from the innermost call (the trace must
//                                      still be complete)
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Bench
{
    public struct Vec
    {
        public double X, Y;
    }

    public sealed class Address
    {
        public string City;
        public int Zip;
    }

    public sealed class Customer
    {
        public string Name;
        public Address Home;
    }

    public sealed class Order
    {
        public long Id;
        public decimal Total;
        public Customer Buyer;
    }

    public static class Values
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Save(Order o) => o.Id + o.Buyer.Home.Zip;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Place(Order o) => o.Id + 1;

        // A line probe's cost (bench/run_trace.sh, BENCH_ONLY=lineprobe): the
        // probe goes at the marked line, 8 primitive locals in scope (each
        // read twice there, so that a release build keeps them).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Mix(int a, long b)
        {
            int c = a + 1; long d = b * 2; double e = a * 0.5; bool f = (a & 1) == 0;
            int g = c ^ 3; long h = d - 1; short i = (short)a; byte j = (byte)b;
            long r = (c + d + (long)e + (f ? 1 : 0) + g + h + i + j) * 2 - (c + d + (long)e + (f ? 1 : 0) + g + h + i + j); // PROBE LINE
            return r;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Sum(List<int> l) => l.Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Look(Dictionary<string, int> d) => d.Count;
    }

    public interface IShape
    {
        double Area(double scale);
    }

    public abstract class Shape : IShape
    {
        public abstract double Area(double scale);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public virtual int Sides() => 0;
    }

    public sealed class Square : Shape
    {
        private readonly double side;
        public Square(double side) { this.side = side; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public override double Area(double scale) => side * side * scale;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public override int Sides() => 4;
    }

    public sealed class Circle : Shape
    {
        private readonly double radius;
        public Circle(double radius) { this.radius = radius; }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public override double Area(double scale) => 3.14159 * radius * radius * scale;
    }

    public static class Ops
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Add(int a, int b) => a + b;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static double Mul(double a, double b) => a * b;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Len(string s) => s.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static Vec Scale(Vec v, double k) => new Vec { X = v.X * k, Y = v.Y * k };

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fib(int n) => n < 2 ? n : Fib(n - 1) + Fib(n - 2);

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Mix(int a, long b, double c, string d, Vec e) =>
            a + b + (long)c + d.Length + (long)e.X;
    }

    public static class Program
    {
        // Calls per iteration of Step: Add, Mul, Len, Scale, Mix, Area through
        // the class, Area through the interface, Sides twice, Fib(4) (9 calls),
        // and Step itself.
        private const int CallsPerStep = 19;
        private static readonly string[] Words = { "alpha", "beta", "gamma", "delta" };

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static double Step(int i, Shape[] shapes, IShape[] ishapes)
        {
            double acc = Ops.Add(i, 3);
            acc += Ops.Mul(i, 0.5);
            string w = Words[i & 3];
            acc += Ops.Len(w);
            Vec v = Ops.Scale(new Vec { X = i, Y = 1 }, 2.0);
            acc += v.X + v.Y;
            acc += Ops.Mix(i, 7L, 1.5, w, v);
            acc += shapes[i & 1].Area(1.0);
            acc += ishapes[(i + 1) & 1].Area(2.0);
            acc += shapes[0].Sides() + shapes[1].Sides();
            acc += Ops.Fib(4);
            return acc;
        }

        private static double Loop(long steps)
        {
            Shape[] shapes = { new Square(2), new Circle(1) };
            IShape[] ishapes = { shapes[0], shapes[1] };
            double sum = 0;
            for (long i = 0; i < steps; i++)
                sum += Step((int)i, shapes, ishapes);
            return sum;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static int Down(int n)
        {
            if (n == 0)
            {
                Console.WriteLine("exiting");
                Environment.Exit(5);
            }
            return Down(n - 1) + 1;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        private static async Task<int> AsyncLeaf(int i)
        {
            await Task.Yield();
            return i + 1;
        }

        private static async Task<long> AsyncLoop(long calls)
        {
            long sum = 0;
            for (long i = 0; i < calls; i++)
                sum += await AsyncLeaf((int)(i & 0xFFFF));
            return sum;
        }

        private static long VmHwmKib()
        {
            foreach (string line in System.IO.File.ReadAllLines("/proc/self/status"))
                if (line.StartsWith("VmHWM:"))
                    return long.Parse(line.Substring(6).Trim().Split(' ')[0]);
            return -1;
        }

        public static int Main(string[] args)
        {
            string mode = args.Length > 0 ? args[0] : "calls";
            if (mode == "hello")
            {
                Console.WriteLine("hello");
                return 0;
            }
            if (mode == "exit")
                return Down(args.Length > 1 ? int.Parse(args[1]) : 10);
            if (mode == "calls" || mode == "activity")
            {
                long calls = args.Length > 1 ? long.Parse(args[1]) : 10_000_000;
                // "activity N": the same calls under a W3C Activity (the
                // Activity.Current the tracer reads at each call, trace ids).
                Activity? act = mode == "activity"
                    ? new Activity("bench").SetIdFormat(ActivityIdFormat.W3C).Start() : null;
                long steps = calls / CallsPerStep;
                Loop(Math.Min(steps, 20_000)); // warm-up: tiered compilation settles
                var sw = Stopwatch.StartNew();
                double sum = Loop(steps);
                sw.Stop();
                long made = steps * CallsPerStep;
                act?.Stop();
                Console.WriteLine("calls={0} ns_per_call={1:F2} sum={2}", made,
                                  sw.Elapsed.TotalMilliseconds * 1e6 / made, sum);
                return 0;
            }
            if (mode == "objects")
            {
                long calls = args.Length > 1 ? long.Parse(args[1]) : 1_000_000;
                // "objects N busy": the objects are first passed right after a
                // burst of other calls, while a small trace buffer is full.
                if (args.Length > 2 && args[2] == "busy")
                    Loop(20_000);
                var order = new Order { Id = 5, Total = 12.5m, Buyer = new Customer { Name = "Ada", Home = new Address { City = "Paris", Zip = 75001 } } };
                var list = new List<int>();
                for (int i = 0; i < 100; i++)
                    list.Add(i);
                var dict = new Dictionary<string, int>();
                for (int i = 0; i < 20; i++)
                    dict["k" + i] = i;
                long steps = calls / 3, sum = 0;
                for (long i = 0; i < Math.Min(steps, 20_000); i++) // warm-up
                    sum += Values.Save(order) + Values.Sum(list) + Values.Look(dict);
                var sw = Stopwatch.StartNew();
                for (long i = 0; i < steps; i++)
                    sum += Values.Save(order) + Values.Sum(list) + Values.Look(dict);
                sw.Stop();
                Console.WriteLine("calls={0} ns_per_call={1:F2} sum={2}", steps * 3,
                                  sw.Elapsed.TotalMilliseconds * 1e6 / (steps * 3), sum);
                return 0;
            }
            if (mode == "async")
            {
                // "async N": N calls of an async method that suspends (an
                // await of Task.Yield: resumed on the thread pool) and
                // returns its result: each a call clrtrace follows until its
                // task completes.
                long calls = args.Length > 1 ? long.Parse(args[1]) : 100_000;
                long sum = AsyncLoop(Math.Min(calls, 2_000)).GetAwaiter().GetResult(); // warm-up
                var sw = Stopwatch.StartNew();
                sum += AsyncLoop(calls).GetAwaiter().GetResult();
                sw.Stop();
                Console.WriteLine("calls={0} ns_per_call={1:F2} sum={2}", calls,
                                  sw.Elapsed.TotalMilliseconds * 1e6 / calls, sum);
                return 0;
            }
            if (mode == "when")
            {
                // "when N": N calls of Values.Place(order), the method a
                // condition (--when) is put on (bench/run_trace.sh).
                long calls = args.Length > 1 ? long.Parse(args[1]) : 1_000_000;
                var order = new Order { Id = 5, Total = 12.5m, Buyer = new Customer { Name = "Ada", Home = new Address { City = "Paris", Zip = 75001 } } };
                long sum = 0;
                for (long i = 0; i < Math.Min(calls, 20_000); i++) // warm-up
                    sum += Values.Place(order);
                var sw = Stopwatch.StartNew();
                for (long i = 0; i < calls; i++)
                    sum += Values.Place(order);
                sw.Stop();
                Console.WriteLine("calls={0} ns_per_call={1:F2} sum={2}", calls,
                                  sw.Elapsed.TotalMilliseconds * 1e6 / calls, sum);
                return 0;
            }
            if (mode == "probe")
            {
                // "probe N": N calls of Values.Mix, the method a line probe
                // (--at) is put in; also the bytes this thread allocated
                // during the timed loop, per call.
                long calls = args.Length > 1 ? long.Parse(args[1]) : 1_000_000;
                long sum = 0;
                for (int k = 0; k < Math.Min(calls, 20_000); k++) // warm-up
                    sum += Values.Mix(k, k);
                long before = GC.GetAllocatedBytesForCurrentThread();
                var sw = Stopwatch.StartNew();
                for (long k = 0; k < calls; k++)
                    sum += Values.Mix((int)k, k);
                sw.Stop();
                long allocated = GC.GetAllocatedBytesForCurrentThread() - before;
                Console.WriteLine("calls={0} ns_per_call={1:F2} sum={2} alloc_per_call={3:F3}", calls,
                                  sw.Elapsed.TotalMilliseconds * 1e6 / calls, sum,
                                  (double)allocated / calls);
                return 0;
            }
            if (mode == "threads")
            {
                int n = args.Length > 1 ? int.Parse(args[1]) : 64;
                long calls = args.Length > 2 ? long.Parse(args[2]) : 200_000;
                long steps = calls / CallsPerStep;
                var threads = new Thread[n];
                double[] sums = new double[n];
                var sw = Stopwatch.StartNew();
                for (int t = 0; t < n; t++)
                {
                    int k = t;
                    threads[t] = new Thread(() => sums[k] = Loop(steps));
                    threads[t].Start();
                }
                foreach (var t in threads)
                    t.Join();
                sw.Stop();
                double sum = 0;
                foreach (double s in sums)
                    sum += s;
                long made = steps * CallsPerStep * n;
                Console.WriteLine("calls={0} ns_per_call={1:F2} sum={2} vmhwm_kib={3}", made,
                                  sw.Elapsed.TotalMilliseconds * 1e6 / made, sum, VmHwmKib());
                return 0;
            }
            Console.Error.WriteLine("usage: Workload calls N | activity N | objects N | when N | threads T N | hello | exit N");
            return 2;
        }
    }
}
