// An ASP.NET Core app whose requests carry W3C trace ids (tests/e2e/run_requests.sh).
//
//   Requests serve PORT-FILE   serves on 127.0.0.1 (a port the system picks,
//                              written to PORT-FILE) until GET /quit (at most
//                              300 s); exit code 0
//
// An ActivityListener on "Microsoft.AspNetCore" makes ASP.NET Core's hosting
// start an Activity per request, continuing the request's `traceparent`
// header (00-TRACEID-PARENTSPANID-01): its trace id is the header's.
//
// GET /checkout/{id} runs Orders.Checkout(id), an async method:
//   Quantity(id) = 3 id; an await (Task.Delay: the rest runs on a
//   thread-pool thread); Price(qty) = 100 qty + 7 on a thread of its own
//   ("pricer", started by the request: the request's ExecutionContext, and
//   its Activity, flow to it), awaited; then
//   Bill(qty, price) = "bill " + qty + " total " + price.
// So /checkout/11 answers "bill 33 total 3307", /checkout/22 "bill 66 total
// 6607", /checkout/33 "bill 99 total 9907".
using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Requests
{
    public static class Orders
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Quantity(int id) => 3 * id;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Price(int qty) => 100 * qty + 7;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Bill(int qty, int price) => "bill " + qty + " total " + price;

        // Price(qty) on a new thread (Thread.Start flows the ExecutionContext).
        public static Task<int> PriceOnOwnThread(int qty)
        {
            var done = new TaskCompletionSource<int>(TaskCreationOptions.RunContinuationsAsynchronously);
            var t = new Thread(() => done.SetResult(Price(qty))) { Name = "pricer", IsBackground = true };
            t.Start();
            return done.Task;
        }

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static async Task<string> Checkout(int id)
        {
            int qty = Quantity(id);
            await Task.Delay(10);
            int price = await PriceOnOwnThread(qty);
            return Bill(qty, price);
        }
    }

    public static class Program
    {
        public static async Task<int> Main(string[] args)
        {
            using var listener = new ActivityListener
            {
                ShouldListenTo = s => s.Name == "Microsoft.AspNetCore",
                Sample = (ref ActivityCreationOptions<ActivityContext> o) => ActivitySamplingResult.AllDataAndRecorded,
            };
            ActivitySource.AddActivityListener(listener);

            var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = Array.Empty<string>() });
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            var app = builder.Build();
            var quit = new CancellationTokenSource(TimeSpan.FromSeconds(300));

            app.MapGet("/checkout/{id:int}", (int id) => Orders.Checkout(id));
            app.MapGet("/quit", () => { quit.Cancel(); return "bye"; });

            await app.StartAsync();
            int port = new Uri(app.Urls.First()).Port;
            File.WriteAllText(args[1] + ".tmp", port + "\n");
            File.Move(args[1] + ".tmp", args[1]);
            await app.WaitForShutdownAsync(quit.Token);
            return 0;
        }
    }
}
