// End-to-end target for async methods that fail (tests/e2e/run_failures.sh,
// issue 35). Each async method's end is written by hand from this source:
// which ones end by which exception, which catch it. The program prints what
// each chain gave and exits with code 9.
//
// Which body (the first, or one resumed after an await) throws must not
// depend on timing: the methods that fail after an await wait for Gate, a
// task Main completes only once the whole chain has suspended; its
// continuations then run at once, in order (Open).
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
        // Completed by Main (Open) once the chain it started has suspended.
        public static TaskCompletionSource Gate = new TaskCompletionSource();

        // Three deep: Checkout awaits Charge, which awaits Authorize, which
        // throws after an await (of the gate: the rest runs resumed).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Authorize(int amount)
        {
            await Gate.Task;
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
            await Gate.Task;
            throw new InvalidOperationException("no stock for " + id);
        }

        // Two failures awaited at once: each body ends by its own; the
        // await of WhenAll rethrows the first (the tasks' order).
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Fail(string what)
        {
            await Gate.Task;
            throw new InvalidOperationException(what);
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Both()
        {
            int[] r = await Task.WhenAll(Fail("first"), Fail("second"));
            return r.Length;
        }

        // An async iterator that throws after its first item.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async IAsyncEnumerable<int> Numbers()
        {
            yield return 1;
            await Gate.Task;
            throw new FormatException("mid-stream");
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<int> Sum()
        {
            int sum = 0;
            await foreach (int n in Numbers())
                sum += n;
            return sum;
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
        // Starts a chain, lets it run on once it has suspended: the failures
        // after an await happen in resumed bodies, every time.
        static async Task<T> Open<T>(Func<Task<T>> start)
        {
            Orders.Gate = new TaskCompletionSource();
            Task<T> chain = start();
            Orders.Gate.SetResult();
            return await chain;
        }

        // The chains, once; what each gave written to `output` (TextWriter.Null
        // when serving).
        static async Task RunOnce(System.IO.TextWriter output)
        {
            try { output.WriteLine(await Open(() => Orders.Checkout(500))); }
            catch (PaymentException e) { output.WriteLine("checkout: " + e.Message); }
            output.WriteLine(await Open(() => Orders.Checkout(20)));
            output.WriteLine(await Open(() => Orders.SafeCheckout(300)));
            try { await Orders.Validate(""); }
            catch (ArgumentException e) { output.WriteLine("validate: " + e.Message); }
            try { output.WriteLine(await Open(() => Orders.Stock(7).AsTask())); }
            catch (InvalidOperationException e) { output.WriteLine("stock: " + e.Message); }
            try { output.WriteLine(await Open(() => Orders.Both())); }
            catch (InvalidOperationException e) { output.WriteLine("both: " + e.Message); }
            try { output.WriteLine(await Open(() => Orders.Sum())); }
            catch (FormatException e) { output.WriteLine("sum: " + e.Message); }
            using (var cts = new CancellationTokenSource())
            {
                Task w = Orders.Wait(cts.Token);
                cts.Cancel();
                try { await w; }
                catch (OperationCanceledException) { output.WriteLine("wait: canceled"); }
            }
        }

        // `serve SECONDS`: the chains again and again (every 20 ms) for that
        // long, for an attach (run_failures.sh); prints "ready PID" first and
        // "served" last, and exits with 0.
        public static async Task<int> Main()
        {
            string[] args = Environment.GetCommandLineArgs();
            if (args.Length == 3 && args[1] == "serve")
            {
                Console.WriteLine("ready " + Environment.ProcessId);
                var until = DateTime.UtcNow.AddSeconds(int.Parse(args[2]));
                while (DateTime.UtcNow < until)
                {
                    await RunOnce(System.IO.TextWriter.Null);
                    await Task.Delay(20);
                }
                Console.WriteLine("served");
                return 0;
            }
            await RunOnce(Console.Out);
            // This continuation ran inside Wait's SetException: a last await
            // lets Wait's body end (and its end be traced) before the
            // program does.
            await Task.Delay(100);
            return 9;
        }
    }
}
