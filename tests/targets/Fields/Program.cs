// End-to-end target for struct fields of objects (tests/e2e/run_fields.sh,
// issue 35): every struct a field of an object holds must read as the same
// struct reads as a parameter. Each call's expected text is written by hand
// from this source; the program prints each result (invariant culture) and
// exits with code 7.
//
//   Fields             the calls once, each result printed
//   Fields serve FLAG  prints "ready PID", then makes the same calls every
//                      5 ms until the file FLAG exists (for `clrtrace -p`:
//                      every type is loaded before the attach); prints the
//                      results of the last round
//   Fields threads N   8 threads call Calls.Last N times each, at once;
//                      prints the sum of what they returned (8 * N * 14)
using System.Diagnostics;
using System.IO;
using System.Threading;
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Runtime.CompilerServices;

namespace Shop
{
    public enum Unit { Piece, Kilo }

    public struct Point { public int X, Y; }

    // A struct with an enum field, as a struct field of an object.
    public struct Measure { public double Value; public Unit Unit; }

    public readonly record struct Money(decimal Amount, string Currency);

    public class Order
    {
        public long Id;
        public DateTime? ShippedAt;
        public DateTime? CancelledAt;
        public int? Quantity;
        public Money Price;
        public Point At;
        public Measure Weight;
        public DateTimeOffset PlacedAt;
    }

    public class Buffers
    {
        public Memory<byte> Body;
        public ReadOnlyMemory<char> Name;
        public ArraySegment<int> Window;
        public KeyValuePair<string, int> Pair;
        public (int Count, string Label) Tuple;
    }

    // An int? as the last field of an object: its 8 bytes and no more.
    public class Tail
    {
        public string Name;
        public int? Wrapped;
    }

    public struct Quote
    {
        public decimal Amount;
        public DateTimeOffset QuotedAt;
        public int? DiscountPercent;
    }

    // A CancellationToken as a field: never a secret (issue 35).
    public class Context
    {
        public string Name;
        public System.Threading.CancellationToken CancellationToken;
    }

    public static class Calls
    {
        // Redaction (issue 35): secrets' names compared whole or by their
        // last words; the near misses are shown.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Secrets(short token, int maxTokens, string tokenizer, string password,
                                  string apiKey, string access_token, Context ctx)
            => token + maxTokens + tokenizer.Length + password.Length + apiKey.Length + access_token.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Ship(Order o) => o.Quantity ?? -1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Sizes(Buffers b) => b.Body.Length + b.Name.Length + b.Window.Count + b.Pair.Value + b.Tuple.Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Last(Tail t) => t.Wrapped ?? 0;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static decimal Price(Quote? q) => q.HasValue ? q.Value.Amount : 0m;
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            if (args.Length == 2 && args[0] == "serve")
            {
                Console.WriteLine("ready " + Environment.ProcessId);
                string last = Round();
                while (!File.Exists(args[1]))
                {
                    last = Round();
                    Thread.Sleep(5);
                }
                Console.Write(last);
                return 7;
            }
            if (args.Length == 2 && args[0] == "threads")
            {
                int n = int.Parse(args[1], CultureInfo.InvariantCulture);
                long sum = 0;
                var go = new ManualResetEventSlim();
                var workers = new Thread[8];
                for (int w = 0; w < workers.Length; w++)
                {
                    workers[w] = new Thread(() =>
                    {
                        var t = new Tail { Name = "t", Wrapped = 14 };
                        long mine = 0;
                        go.Wait();
                        for (int i = 0; i < n; i++)
                            mine += Calls.Last(t);
                        Interlocked.Add(ref sum, mine);
                    });
                    workers[w].Start();
                }
                go.Set();
                foreach (var t in workers)
                    t.Join();
                Console.WriteLine(sum);
                return 7;
            }
            Console.Write(Round());
            return 7;
        }

        static string Round()
        {
            var w = new StringWriter();
            var o = new Order {
                Id = 12,
                ShippedAt = new DateTime(2026, 3, 3, 11, 5, 0),
                CancelledAt = null,
                Quantity = 14,
                Price = new Money(406.07m, "EUR"),
                At = new Point { X = 3, Y = -4 },
                Weight = new Measure { Value = 2.5, Unit = Unit.Kilo },
                PlacedAt = new DateTimeOffset(2026, 3, 1, 8, 30, 0, TimeSpan.FromHours(1)),
            };
            w.WriteLine(Calls.Ship(o));
            var b = new Buffers {
                Body = new byte[] { 1, 2, 3 },
                Name = "clrtrace".AsMemory(3, 5),
                Window = new ArraySegment<int>(new[] { 10, 20, 30, 40 }, 1, 2),
                Pair = new KeyValuePair<string, int>("k", 9),
                Tuple = (2, "two"),
            };
            w.WriteLine(Calls.Sizes(b));
            w.WriteLine(Calls.Last(new Tail { Name = "t", Wrapped = 14 }));
            w.WriteLine(Calls.Last(new Tail { Name = "u" }));
            var q = new Quote {
                Amount = 99.5m,
                QuotedAt = new DateTimeOffset(2026, 3, 2, 17, 0, 0, TimeSpan.Zero),
                DiscountPercent = null,
            };
            w.WriteLine(Calls.Price(q).ToString(CultureInfo.InvariantCulture));
            w.WriteLine(Calls.Price(null).ToString(CultureInfo.InvariantCulture));
            w.WriteLine(Calls.Secrets(3, 100, "bpe", "hunter2", "k-123", "at-1",
                                      new Context { Name = "c" }));
            return w.ToString();
        }
    }
}
