// A minimal-API app on Kestrel, 127.0.0.1 and a port the system picks.
//
//   Web client N TIMES-FILE   serves, requests /order/i, /text/i and /slow/i
//                             for i = 1..N itself (HttpClient, one at a time,
//                             20 ms apart), prints each answer, writes each
//                             request's time as "ROUTE i MICROSECONDS" to
//                             TIMES-FILE, stops; exit code 3
//   Web first                 serves, requests /order/1 once itself, prints
//                             the answer, stops; exit code 3 (its whole run
//                             is the time to a first response:
//                             bench/run_trace.sh)
//   Web serve PORT-FILE [S]   serves until GET /quit, SIGTERM or Ctrl-C (at
//                             most S s, 300), after writing its port to
//                             PORT-FILE; exit code 0
//
// The handlers (Web.Program.<>c.<Main>b__0_N, in the order of MapGet):
//   /order/{id}  (int id) => Shop.Receipt(Shop.Place(id))          a string
//   /text/{id}   (int id) => Results.Text(Shop.Receipt(...))        ends in a
//                call into the framework (an opportunistic tail call)
//   /slow/{id}   the same as /order, marked NoInlining
// Place(id) = 2 id + 1, Total(qty) = 250 qty + 99,
// Receipt(qty) = "qty Q total T" with T = Total(Q).
using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Net.Http;
using System.Runtime.CompilerServices;
using System.Threading;
using System.Threading.Tasks;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting;
using Microsoft.AspNetCore.Http;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace Web
{
    public static class Shop
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Place(int id) => 2 * id + 1;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Total(int qty) => 250 * qty + 99;

        [MethodImpl(MethodImplOptions.NoInlining)]
        public static string Receipt(int qty) => "qty " + qty + " total " + Total(qty);
    }

    public static class Program
    {
        public static async Task<int> Main(string[] args)
        {
            string mode = args.Length > 0 ? args[0] : "client";
            var builder = WebApplication.CreateBuilder(new WebApplicationOptions { Args = Array.Empty<string>() });
            builder.Logging.ClearProviders();
            builder.WebHost.UseUrls("http://127.0.0.1:0");
            var app = builder.Build();
            // serve PORT-FILE [SECONDS]: at most SECONDS (300) serving.
            int most = mode == "serve" && args.Length > 2 ? int.Parse(args[2]) : 300;
            var quit = new CancellationTokenSource(TimeSpan.FromSeconds(most));

            app.MapGet("/order/{id:int}", (int id) => Shop.Receipt(Shop.Place(id)));
            app.MapGet("/text/{id:int}", (int id) => Results.Text(Shop.Receipt(Shop.Place(id))));
            app.MapGet("/slow/{id:int}", [MethodImpl(MethodImplOptions.NoInlining)] (int id) => Shop.Receipt(Shop.Place(id)));
            app.MapGet("/quit", () => { quit.Cancel(); return "bye"; });

            await app.StartAsync();
            var url = app.Urls.First();
            int port = new Uri(url).Port;

            if (mode == "serve")
            {
                File.WriteAllText(args[1] + ".tmp", port + "\n");
                File.Move(args[1] + ".tmp", args[1]);
                // Until GET /quit, SIGTERM or Ctrl-C, at most `most` s.
                await app.WaitForShutdownAsync(quit.Token);
                return 0;
            }

            if (mode == "first")
            {
                using var first = new HttpClient { BaseAddress = new Uri(url), Timeout = TimeSpan.FromSeconds(60) };
                Console.WriteLine("order 1: " + await first.GetStringAsync("/order/1"));
                await app.StopAsync();
                return 3;
            }

            int n = int.Parse(args[1]);
            using var times = new StreamWriter(args[2]);
            using var client = new HttpClient { BaseAddress = new Uri(url), Timeout = TimeSpan.FromSeconds(60) };
            foreach (var route in new[] { "order", "text", "slow" })
            {
                for (int i = 1; i <= n; i++)
                {
                    var sw = Stopwatch.StartNew();
                    string body = await client.GetStringAsync("/" + route + "/" + i);
                    sw.Stop();
                    times.WriteLine(route + " " + i + " " + (long)(sw.Elapsed.TotalMilliseconds * 1000));
                    Console.WriteLine(route + " " + i + ": " + body);
                    await Task.Delay(20);
                }
            }
            await app.StopAsync();
            return 3;
        }
    }
}
