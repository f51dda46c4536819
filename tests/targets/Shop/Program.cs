// End-to-end target for clrtrace's conditions (tests/e2e/run_when.sh). Four
// orders are placed, in this order, with the values below; the expected
// calls of each condition are worked out by hand from them; then two
// look-ups (TryFind 2, 9) and the four orders shipped (Ship: two throw).
// Prints one line per call and exits with code 3. With "serve S" it is a service for
// attach instead (below).
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace Shop
{
    public enum Status { New, Paid, Shipped }

    public class Customer
    {
        public string Name { get; set; }
        public string Country;
    }

    public class Line
    {
        public string Sku;
        public int Qty;
    }

    public class Order
    {
        public int Id;
        public decimal Total { get; set; }
        public Customer Customer;
        public Status Status;
        public List<Line> Lines = new List<Line>();
        public string Note;
        public int[] Codes;
    }

    public class Cart
    {
        public string Owner;
        public int Count;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public int Add(Line line)
        {
            Count += line.Qty;
            return Count;
        }
    }

    public static class Orders
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Place(Order order)
        {
            return Audit(order.Id) + order.Id;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        static int Audit(int id)
        {
            return id * 2;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool Check(string code, long qty, bool urgent)
        {
            return urgent || qty > 5 || code.Length > 5;
        }

        // The order of `all` whose Id is id, in `found` (null when none).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static bool TryFind(Order[] all, int id, out Order found)
        {
            found = null;
            foreach (var o in all)
                if (o.Id == id)
                    found = o;
            return found != null;
        }

        // Paid: its count of lines; New: InvalidOperationException; Shipped:
        // ArgumentException.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Ship(Order order)
        {
            if (order.Status == Status.New)
                throw new InvalidOperationException("order " + order.Id + " is not paid");
            if (order.Status == Status.Shipped)
                throw new ArgumentException("order " + order.Id + " was shipped");
            return Audit(order.Lines.Count);
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            var ana = new Customer { Name = "Ana", Country = "PT" };
            var bob = new Customer { Name = "Bob", Country = "ES" };
            var ze = new Customer { Name = "Zé", Country = "PT" };
            var orders = new[]
            {
                new Order { Id = 1, Total = 1250.50m, Customer = ana, Status = Status.Paid,
                            Lines = { new Line { Sku = "A", Qty = 1 }, new Line { Sku = "B", Qty = 2 } },
                            Codes = new[] { 1, 2, 3 } },
                new Order { Id = 2, Total = 99.99m, Customer = bob, Status = Status.New,
                            Note = "gift" },
                new Order { Id = 3, Total = 1000m, Customer = null, Status = Status.New,
                            Codes = new int[0] },
                new Order { Id = 4, Total = 5000m, Customer = ze, Status = Status.Shipped,
                            Lines = { new Line { Sku = "C", Qty = 7 } } },
            };
            if (args.Length > 1 && args[0] == "serve")
            {
                // "serve S": a service for attach (-p): the four orders placed
                // every 5 ms for S seconds, after "ready PID".
                Console.WriteLine("ready " + Environment.ProcessId);
                long sum = 0;
                var until = DateTime.UtcNow.AddSeconds(int.Parse(args[1]));
                while (DateTime.UtcNow < until)
                {
                    foreach (var o in orders)
                        sum += Orders.Place(o);
                    Thread.Sleep(5);
                }
                Console.WriteLine("served " + (sum > 0));
                return 0;
            }
            foreach (var o in orders)
                Console.WriteLine("placed " + Orders.Place(o));
            Console.WriteLine("check " + Orders.Check("abc", -5, true));
            Console.WriteLine("check " + Orders.Check("xyz", 7, false));
            var cart = new Cart { Owner = "Ana" };
            Console.WriteLine("cart " + cart.Add(new Line { Sku = "A", Qty = 1 }));
            Console.WriteLine("cart " + cart.Add(new Line { Sku = "B", Qty = 3 }));
            var other = new Cart { Owner = "Bob" };
            Console.WriteLine("cart " + other.Add(new Line { Sku = "C", Qty = 4 }));
            foreach (var id in new[] { 2, 9 })
                Console.WriteLine("find " + id + " " + Orders.TryFind(orders, id, out var found) + " " + found?.Customer.Name);
            foreach (var o in orders)
            {
                try { Console.WriteLine("ship " + Orders.Ship(o)); }
                catch (Exception e) { Console.WriteLine("ship failed: " + e.Message); }
            }
            return 3;
        }
    }
}
