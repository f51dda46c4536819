// End-to-end target for async methods that fail (tests/e2e/run_failures.sh,
// issue 35). Each async method's end is written by hand from this source:
// which ones end by which exception, which catch it. The program prints what
// each chain gave and exits with code 9.
using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;

namespace Shop
{
    public sealed class PaymentException : Exception
    {
        public PaymentException(string message) : base(message) { }
    }

    public static class Orders
    {
        // Three deep: Checkout awaits Charge, which awaits Authorize, which
        // throws after an await (a Task.Yield: the rest runs resumed).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Authorize(int amount)
        {
            await Task.Yield();
            if (amount > 100)
                throw new PaymentException("declined: " + amount);
            return amount;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Charge(int amount) => await Authorize(amount) + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Checkout(int amount) => await Charge(amount) * 2;

        // Catches what Charge rethrows: it ends normally.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<string> SafeCheckout(int amount)
        {
            try
            {
                return "paid " + await Charge(amount);
            }
            catch (PaymentException e)
            {
                return "refused (" + e.Message + ")";
            }
        }

        // Throws before its first await: the task it returns is already faulted.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task Validate(string sku)
        {
            if (sku.Length == 0)
                throw new ArgumentException("empty sku");
            await Task.Yield();
        }

        // A ValueTask<T> method that fails.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async ValueTask<int> Stock(int id)
        {
            await Task.Yield();
            throw new InvalidOperationException("no stock for " + id);
        }

        // Cancelled: ends by OperationCanceledException (the task Canceled).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task Wait(CancellationToken token)
        {
            await Task.Delay(Timeout.Infinite, token);
        }
    }

    public static class Program
    {
        public static async Task<int> Main()
        {
            try { Console.WriteLine(await Orders.Checkout(500)); }
            catch (PaymentException e) { Console.WriteLine("checkout: " + e.Message); }
            Console.WriteLine(await Orders.Checkout(20));
            Console.WriteLine(await Orders.SafeCheckout(300));
            try { await Orders.Validate(""); }
            catch (ArgumentException e) { Console.WriteLine("validate: " + e.Message); }
            try { Console.WriteLine(await Orders.Stock(7)); }
            catch (InvalidOperationException e) { Console.WriteLine("stock: " + e.Message); }
            using (var cts = new CancellationTokenSource())
            {
                Task w = Orders.Wait(cts.Token);
                cts.Cancel();
                try { await w; }
                catch (OperationCanceledException) { Console.WriteLine("wait: canceled"); }
            }
            // This continuation ran inside Wait's SetException: a last await
            // lets Wait's body end (and its end be traced) before the
            // program does.
            await Task.Delay(100);
            return 9;
        }
    }
}
