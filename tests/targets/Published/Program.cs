// End-to-end target for published apps and runtime versions
// (tests/e2e/run_published.sh). Usage:
//   Published                 the calls below, then prints their results; exits 3
//   Published serve FLAG      prints "ready PID", then calls Work.Tick(n) every
//                             millisecond until the file FLAG exists; exits 0
//   Published tokens DIR...   (not traced) prints "TOKEN NAME" for every
//                             assembly in the folders, by
//                             System.Reflection.AssemblyName: the public key
//                             token of each assembly's definition
using System;
using System.Collections.Generic;
using System.IO;
using System.Reflection;
using System.Threading;
using System.Threading.Tasks;

namespace Pub
{
    public sealed class Order
    {
        public int Id;
        public string Name;
        public Order(int id, string name) { Id = id; Name = name; }
    }

    public static class Work
    {
        public static Order Make(int id, string name) => new Order(id, name);

        public static int Total(List<int> items)
        {
            int sum = 0;
            foreach (int i in items)
                sum += i;
            return sum;
        }

        public static int Lookup(Dictionary<string, int> map, string key) => map[key];

        public static DateOnly NextDay(DateOnly day) => day.AddDays(1);

        public static void Inner(int n) => throw new InvalidOperationException("inner " + n);

        public static void Outer(int n)
        {
            try
            {
                Inner(n);
            }
            catch (InvalidOperationException e)
            {
                throw new ApplicationException("outer", e);
            }
        }

        // Suspends on gate (pending at the call), resumes when Main completes it.
        public static async Task<int> SumAsync(int a, int b, Task<int> gate)
        {
            int g = await gate;
            return a + b + g;
        }

        public static int Done(Task<int> task) => task.Result;

        // File I/O goes through CoreLib's Interop.Sys.*: framework code, never traced by default.
        public static int WriteRead(string path, string text)
        {
            File.WriteAllText(path, text);
            return File.ReadAllText(path).Length;
        }

        public static int Tick(int n) => n * 2;
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length == 2 && args[0] == "serve")
                return Serve(args[1]);
            if (args.Length >= 2 && args[0] == "tokens")
                return Tokens(args);

            Order o = Work.Make(7, "seven");
            int total = Work.Total(new List<int> { 1, 2, 3 });
            int v = Work.Lookup(new Dictionary<string, int> { ["a"] = 1, ["b"] = 2 }, "b");
            DateOnly next = Work.NextDay(new DateOnly(2024, 2, 28));
            string caught = "none";
            try
            {
                Work.Outer(5);
            }
            catch (ApplicationException e)
            {
                caught = e.Message + "/" + e.InnerException.Message;
            }
            // The continuation runs inline, on this thread, in SetResult.
            var gate = new TaskCompletionSource<int>();
            Task<int> t = Work.SumAsync(20, 21, gate.Task);
            gate.SetResult(1);
            int sum = Work.Done(t);
            string path = Path.Combine(Path.GetTempPath(), "clrtrace-published-" + Environment.ProcessId);
            int len = Work.WriteRead(path, "hello");
            File.Delete(path);
            Console.WriteLine($"order={o.Id}:{o.Name} total={total} lookup={v} next={next:yyyy-MM-dd} caught={caught} sum={sum} len={len}");
            return 3;
        }

        static int Serve(string flag)
        {
            Console.WriteLine($"ready {Environment.ProcessId}");
            Console.Out.Flush();
            int n = 0;
            while (!File.Exists(flag))
            {
                Work.Tick(n++ % 1000);
                Thread.Sleep(1);
            }
            return 0;
        }

        static int Tokens(string[] args)
        {
            for (int i = 1; i < args.Length; i++)
            {
                foreach (string f in Directory.GetFiles(args[i], "*.dll"))
                {
                    AssemblyName name;
                    try
                    {
                        name = AssemblyName.GetAssemblyName(f);
                    }
                    catch (BadImageFormatException)
                    {
                        continue; // a native library
                    }
                    byte[] token = name.GetPublicKeyToken();
                    Console.WriteLine((token == null || token.Length == 0 ? "none" : Convert.ToHexString(token).ToLowerInvariant()) + " " + name.Name);
                }
            }
            return 0;
        }
    }
}
