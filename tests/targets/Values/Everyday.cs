// The BCL's everyday types (issue 25, the audit): one method per group,
// each taking the types as parameters, with values the test's expectations
// are written from (tests/e2e/run_values.sh).
using System;
using System.Collections;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Globalization;
using System.Net;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using System.Threading.Tasks;

namespace Demo
{
    public static class Everyday
    {
        // Uri, Version, IPAddress: Segments "/", "a/", "b" 3 + 4 + 6 + 4 + 16 + 0 = 33.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Net(Uri uri, Version version, Version shortVersion, IPAddress v4, IPAddress v6,
            IPAddress loopback6)
        {
            return uri.Segments.Length + (version.Revision - 0) + shortVersion.Minor
                   + v4.GetAddressBytes().Length + v6.GetAddressBytes().Length + (loopback6.IsIPv6LinkLocal ? 1 : 0);
        }

        // Encodings, CultureInfo, memory over a string.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Text(Encoding encoding, Encoding unicode, Encoding latin1, CultureInfo culture,
            CultureInfo invariant, ReadOnlyMemory<char> rom, Memory<char> mem)
        {
            return encoding.CodePage % 1000 + unicode.CodePage % 1000 + latin1.CodePage % 1000
                   + culture.Name.Length + invariant.Name.Length + rom.Length + mem.Length;
        }

        // Type and MethodInfo.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Reflection(Type type, Type generic, MethodInfo method)
        {
            return type.Name.Length + generic.Name.Length + method.Name.Length;
        }

        // Task<T> done and pending, a plain Task, ValueTask<T> of a result and of
        // a Task, tokens, Lazy<T>.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Tasks(Task<int> done, Task<string> pending, Task plain, ValueTask<int> vt,
            ValueTask<int> waiting, CancellationToken none, CancellationToken cancelled, Lazy<int> made, Lazy<string> unmade)
        {
            return done.Result + (pending.IsCompleted ? 1 : 0) + (plain.IsCompleted ? 2 : 0) + vt.Result + waiting.Result
                   + (none.IsCancellationRequested ? 4 : 0) + (cancelled.IsCancellationRequested ? 8 : 0)
                   + made.Value + (unmade.IsValueCreated ? 16 : 0);
        }

        // Collections beyond List/Dictionary.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Collections(ConcurrentDictionary<string, int> concurrent,
            SortedDictionary<string, int> sorted, LinkedList<int> linked, ImmutableList<int> ilist,
            ImmutableDictionary<string, int> idict, BitArray bits)
        {
            return concurrent.Count + sorted.Count + linked.Count + ilist.Count + idict.Count + bits.Length;
        }

        public static void Run(Action<string, object> show)
        {
            show("net", Net(new Uri("https://example.com/a/b?q=1"), new Version(1, 2, 3, 4), new Version(5, 6),
                IPAddress.Parse("127.0.0.1"), IPAddress.Parse("2001:db8::1"), IPAddress.IPv6Loopback));
            show("text", Text(Encoding.UTF8, Encoding.Unicode, Encoding.Latin1, new CultureInfo("en-US"), CultureInfo.InvariantCulture,
                "hello, world".AsMemory(7, 5), new char[] { 'a', 'b', 'c' }));
            show("reflection", Reflection(typeof(Point), typeof(Dictionary<string, int>),
                typeof(Everyday).GetMethod("Net")));
            var tcs = new TaskCompletionSource<string>();
            var cts = new CancellationTokenSource();
            cts.Cancel();
            var made = new Lazy<int>(() => 40);
            _ = made.Value;
            show("tasks", Tasks(Task.FromResult(42), tcs.Task, Task.CompletedTask, new ValueTask<int>(5),
                new ValueTask<int>(Task.FromResult(7)),
                CancellationToken.None, cts.Token, made, new Lazy<string>(() => "later")));
            var concurrent = new ConcurrentDictionary<string, int>();
            concurrent["one"] = 1;
            var linked = new LinkedList<int>();
            linked.AddLast(1);
            linked.AddLast(2);
            linked.AddLast(3);
            var bits = new BitArray(10);
            bits[0] = true;
            bits[3] = true;
            show("collections", Collections(concurrent,
                new SortedDictionary<string, int> { ["b"] = 2, ["a"] = 1 }, linked,
                ImmutableList.Create(7, 8, 9), ImmutableDictionary<string, int>.Empty.Add("k", 11), bits));
        }
    }
}
