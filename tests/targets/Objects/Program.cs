// End-to-end target for clrtrace's objects and collections
// (tests/e2e/run_objects.sh). Every call passes values whose expected text is
// written by hand from this source; each result is printed (invariant
// culture) and the program exits with code 5.
using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Globalization;
using System.Numerics;
using System.Runtime.CompilerServices;
using System.Text;

namespace Demo
{
    public class Customer
    {
        public string Name { get; set; }
        public int Age;
    }

    public class Entity
    {
        public long Id;
    }

    // A base class's fields come first.
    public class Order : Entity
    {
        public string Sku;
        public Customer Customer;
        public decimal Total { get; init; }
    }

    public record Money(decimal Amount, string Currency);

    public class Node
    {
        public int Value;
        public Node Next;
    }

    public struct Point : IComparable<Point>
    {
        public int X, Y;
        public int CompareTo(Point other) => X.CompareTo(other.X);
    }

    public enum Color { Red, Green, Blue }

    public class Wide
    {
        public int F1 = 1, F2 = 2, F3 = 3, F4 = 4, F5 = 5;
    }

    public class Deep
    {
        public int Level;
        public Deep Inner;
    }

    public class Empty { }

    public static class Calls
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static long Save(Order o) => o.Id + o.Customer.Age;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Pay(Money m) => m.Currency;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Walk(Node head)
        {
            int n = 0;
            for (Node x = head; x != null && n < 10; x = x.Next)
                n++;
            return n;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Pair(Customer a, Customer b, object[] both) => a.Age + b.Age + both.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Boxes(object i, IComparable<Point> p, object c, object s, object e) => 4;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Fields(Wide w) => w.F5;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Nest(Deep d) => d.Level;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Nothing(Empty e) => 0;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Lists(List<int> ints, List<string> names, List<Customer> people) =>
            ints.Count + names.Count + people.Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Maps(Dictionary<string, int> ages, HashSet<int> primes) => ages.Count + primes.Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Lines(Queue<string> q, Stack<int> s) => q.Count + s.Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Views(ImmutableArray<int> ia, ArraySegment<int> seg, Memory<int> mem,
                                ReadOnlyMemory<char> text) => ia.Length + seg.Count + mem.Length + text.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Grids(int[,] grid, int[][] jagged, Point[] points, object[] mixed) =>
            grid.Length + jagged.Length + points.Length + mixed.Length;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Times(DateTimeOffset at, DateTimeOffset? maybe, Rune r, Rune emoji) => r.Value;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static List<int> Make(int n)
        {
            var l = new List<int>();
            for (int i = 0; i < n; i++)
                l.Add(i * i);
            return l;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Big(List<int> many) => many.Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Holder(object anything) => 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Crowd(List<Customer> people) => people.Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Bigs(BigInteger small, BigInteger large, BigInteger negative, BigInteger huge) =>
            large.IsPowerOfTwo ? 1 : 0;

        // Overloads: one name, two rows in a report.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Twice(int n) => 2 * n;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Twice(string s) => 2 * s.Length;
    }

    public static class Program
    {
        private static readonly CultureInfo Inv = CultureInfo.InvariantCulture;

        private static void Show(string what, object value)
        {
            Console.WriteLine(what + "=" + Convert.ToString(value, Inv));
        }

        public static int Main()
        {
            var ada = new Customer { Name = "Ada", Age = 36 };
            Show("save", Calls.Save(new Order { Id = 5, Sku = "x-1", Customer = ada, Total = 12.50m }));
            Show("pay", Calls.Pay(new Money(9.99m, "EUR")));

            var a = new Node { Value = 1 };
            var b = new Node { Value = 2, Next = a };
            a.Next = b;
            Show("walk", Calls.Walk(a));
            var bob = new Customer { Name = "Bob", Age = 7 };
            Show("pair", Calls.Pair(bob, bob, new object[] { bob, 3 }));

            Show("boxes", Calls.Boxes(5, new Point { X = 1, Y = 2 }, Color.Blue, "str", new Empty()));
            Show("fields", Calls.Fields(new Wide()));
            Show("nest", Calls.Nest(new Deep { Level = 1, Inner = new Deep { Level = 2, Inner = new Deep { Level = 3, Inner = new Deep { Level = 4 } } } }));
            Show("nothing", Calls.Nothing(new Empty()));

            Show("lists", Calls.Lists(new List<int> { 1, 2, 3 }, new List<string> { "a", null },
                new List<Customer> { ada }));
            var ages = new Dictionary<string, int> { ["x"] = 1, ["y"] = 2, ["z"] = 3 };
            ages.Remove("y");
            Show("maps", Calls.Maps(ages, new HashSet<int> { 2, 3, 5 }));
            var q = new Queue<string>();
            q.Enqueue("drop");
            q.Enqueue("one");
            q.Enqueue("two");
            q.Dequeue();
            var s = new Stack<int>();
            s.Push(1);
            s.Push(2);
            s.Push(3);
            Show("lines", Calls.Lines(q, s));

            int[] backing = { 10, 20, 30, 40, 50 };
            Show("views", Calls.Views(ImmutableArray.Create(7, 8, 9), new ArraySegment<int>(backing, 1, 3),
                new Memory<int>(backing, 3, 2), "hello world".AsMemory(6, 5)));
            var grid = new int[2, 3];
            grid[0, 0] = 1;
            grid[1, 2] = 6;
            Show("grids", Calls.Grids(grid, new[] { new[] { 1, 2 }, new[] { 3 } },
                new[] { new Point { X = 1, Y = 2 }, new Point { X = 3, Y = 4 } },
                new object[] { 1, "two", null, 3.5 }));

            var at = new DateTimeOffset(2024, 5, 6, 9, 8, 7, TimeSpan.FromHours(2)).AddTicks(1234567);
            Show("times", Calls.Times(at, null, new Rune('A'), new Rune(0x1F600)));

            Show("make", Calls.Make(4).Count);
            var many = new List<int>();
            for (int i = 0; i < 100; i++)
                many.Add(i);
            Show("big", Calls.Big(many));
            Show("holder", Calls.Holder(new[] { 1, 2 }));
            var crowd = new List<Customer>();
            for (int i = 0; i < 10; i++)
                crowd.Add(new Customer { Name = "c" + i, Age = i });
            Show("crowd", Calls.Crowd(crowd));
            Show("twice", Calls.Twice(3) + Calls.Twice("ab") + Calls.Twice(5));
            Show("bigs", Calls.Bigs(42, BigInteger.Pow(2, 100), -BigInteger.Pow(10, 30), BigInteger.Pow(2, 400)));
            return 5;
        }
    }
}
