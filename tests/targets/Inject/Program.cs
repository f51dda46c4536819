// End-to-end target for clrtrace's fault injection (tests/e2e/run_inject.sh).
// A client whose Send a retry loop repeats (up to three attempts a request),
// methods of every return type --inject can return a value of, async
// methods a caller awaits, and methods whose delay the program measures.
// Every mode prints what it saw, so the test compares it with what the
// faults must make it see, written by hand from this source.
using System;
using System.Diagnostics;
using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Inject
{
    public enum Status { Closed = 0, Open = 1, Broken = 7 }

    public struct Point
    {
        public int X, Y;
        public Point(int x, int y) { X = x; Y = y; }
        public override string ToString() => "(" + X + ", " + Y + ")";
    }

    public class Client
    {
        public int Sent;

        // The call a retry loop repeats.
        public string Send(string message)
        {
            Sent++;
            return "ok:" + message;
        }

        public int Count(int n) => n + 1;
        public bool Ready() => true;
        public string Name() => "real";
        public decimal Price(decimal amount) => amount * 2;
        public Status State() => Status.Open;
        public double Ratio() => 0.5;
        public long Big() => 1;
        public char Grade() => 'A';
        public Point Where() => new Point(1, 2);
        public int? Maybe() => 5;
        public void Log(string text) { Console.WriteLine("log: " + text); }

        public async Task<int> FetchAsync(int id)
        {
            await Task.Yield();
            return id * 10;
        }

        public async Task<string> LoadAsync(string key)
        {
            await Task.Yield();
            return "loaded:" + key;
        }

        public async Task SaveAsync(string key)
        {
            await Task.Yield();
            Console.WriteLine("saved " + key);
        }

        public ValueTask<int> PeekAsync(int id) => new ValueTask<int>(id + 100);

        // Charges amount; a fault may be injected for some amounts only.
        public decimal Charge(decimal amount) => amount;

        public int Slow(int x) => x;
    }

    public static class Program
    {
        static int Retry(Client client, int requests)
        {
            int recovered = 0;
            for (int i = 0; i < requests; i++)
            {
                for (int attempt = 1; attempt <= 3; attempt++)
                {
                    try
                    {
                        string reply = client.Send("req" + i);
                        Console.WriteLine("req" + i + ": " + reply + " after " + attempt + " attempt" + (attempt == 1 ? "" : "s"));
                        recovered++;
                        break;
                    }
                    catch (HttpRequestException e)
                    {
                        Console.WriteLine("req" + i + ": attempt " + attempt + " failed: " + e.Message);
                    }
                }
            }
            Console.WriteLine("recovered " + recovered + " of " + requests);
            return recovered == requests ? 0 : 3;
        }

        static void Values(Client c)
        {
            Console.WriteLine("Count: " + c.Count(41));
            Console.WriteLine("Ready: " + c.Ready());
            Console.WriteLine("Name: " + (c.Name() ?? "<null>"));
            Console.WriteLine("Price: " + c.Price(2.50m));
            Console.WriteLine("State: " + c.State());
            Console.WriteLine("Ratio: " + c.Ratio());
            Console.WriteLine("Big: " + c.Big());
            Console.WriteLine("Grade: " + c.Grade());
            Console.WriteLine("Where: " + c.Where());
            Console.WriteLine("Maybe: " + (c.Maybe()?.ToString() ?? "<null>"));
            c.Log("hello");
            Console.WriteLine("Fetch: " + c.FetchAsync(4).GetAwaiter().GetResult());
            Console.WriteLine("Load: " + c.LoadAsync("k").GetAwaiter().GetResult());
            c.SaveAsync("s").GetAwaiter().GetResult();
            Console.WriteLine("Peek: " + c.PeekAsync(1).AsTask().GetAwaiter().GetResult());
        }

        static async Task<int> Async(Client c)
        {
            int failed = 0;
            for (int i = 1; i <= 4; i++)
            {
                Task<int> t = c.FetchAsync(i);   // the call returns its task first
                Console.WriteLine("fetch " + i + " returned a task");
                try
                {
                    Console.WriteLine("fetch " + i + ": " + await t);
                }
                catch (TimeoutException e)
                {
                    failed++;
                    Console.WriteLine("fetch " + i + " failed: " + e.GetType().Name + ": " + e.Message);
                }
            }
            return failed;
        }

        static void Charges(Client c)
        {
            decimal[] amounts = { 50m, 150m, 80m, 300m };
            foreach (decimal a in amounts)
            {
                try
                {
                    Console.WriteLine("charged " + c.Charge(a));
                }
                catch (TimeoutException e)
                {
                    Console.WriteLine("charge " + a + " timed out: " + e.Message);
                }
            }
        }

        static void Delay(Client c)
        {
            var sw = Stopwatch.StartNew();
            int r = c.Slow(7);
            sw.Stop();
            Console.WriteLine("slow returned " + r + (sw.ElapsedMilliseconds >= 200 ? " after at least 200 ms" : " at once"));
        }

        // An async method's delay comes before its first await: the call
        // returns its task only after it (on the caller's thread), then the
        // task completes with the method's own value.
        static void DelayAsync(Client c)
        {
            var sw = Stopwatch.StartNew();
            Task<int> t = c.FetchAsync(7);
            long returned = sw.ElapsedMilliseconds;
            int r = t.GetAwaiter().GetResult();
            Console.WriteLine("fetch returned its task " + (returned >= 200 ? "after at least 200 ms" : "at once") + ", then " + r);
        }

        static void Calls(Client c, int n)
        {
            int failed = 0;
            for (int i = 1; i <= n; i++)
            {
                try { c.Count(i); }
                catch (InvalidOperationException) { failed++; Console.WriteLine("call " + i + " failed"); }
            }
            Console.WriteLine("failed " + failed + " of " + n);
        }

        // Count at a steady pace for `seconds`: rounds of 1000 calls, a
        // millisecond's sleep after each (run_top.sh: a trace that grows by
        // megabytes a second, which top follows).
        static void Paced(Client c, int seconds)
        {
            var sw = Stopwatch.StartNew();
            long calls = 0;
            while (sw.ElapsedMilliseconds < seconds * 1000L)
            {
                for (int i = 0; i < 1000; i++) c.Count(i);
                calls += 1000;
                Thread.Sleep(1);
            }
            Console.WriteLine("paced: " + calls + " calls");
        }

        // A service: Send in a retry loop until told to stop (stdin closes
        // or "stop" is read), with a ready line for the attach test.
        static int Serve(Client c)
        {
            Console.WriteLine("ready " + Environment.ProcessId);
            int round = 0;
            var stop = new ManualResetEventSlim();
            var reader = new Thread(() => { while (Console.In.ReadLine() is string l && l != "stop") { } stop.Set(); });
            reader.IsBackground = true;
            reader.Start();
            while (!stop.Wait(20))
            {
                round++;
                try { c.Send("live" + round); }
                catch (HttpRequestException e) { Console.WriteLine("live" + round + " failed: " + e.Message); }
                // Values not their own: said, so that a test counts them.
                int n = c.Count(round);
                if (n != round + 1) Console.WriteLine("live" + round + " count " + n);
                int f = c.FetchAsync(round).GetAwaiter().GetResult();
                if (f != round * 10) Console.WriteLine("live" + round + " fetch " + f);
            }
            Console.WriteLine("served " + round);
            return 0;
        }

        public static int Main(string[] args)
        {
            var client = new Client();
            string mode = args.Length > 0 ? args[0] : "retry";
            switch (mode)
            {
                case "retry": return Retry(client, args.Length > 1 ? int.Parse(args[1]) : 6);
                case "values": Values(client); return 0;
                case "async": return Async(client).GetAwaiter().GetResult();
                case "charges": Charges(client); return 0;
                case "delay": Delay(client); return 0;
                case "delayasync": DelayAsync(client); return 0;
                case "calls": Calls(client, args.Length > 1 ? int.Parse(args[1]) : 20); return 0;
                case "serve": return Serve(client);
                case "paced": Paced(client, args.Length > 1 ? int.Parse(args[1]) : 10); return 0;
            }
            return 2;
        }
    }
}
