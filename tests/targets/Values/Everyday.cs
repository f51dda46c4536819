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

        // Trees and hash buckets: SortedSet<int> in order, ImmutableSortedSet,
        // ImmutableHashSet<int> by hash (an int's hash is itself), one
        // ImmutableHashSet bucket of three colliding values (first, then the
        // others in the order added), a ConcurrentDictionary<int, string> by
        // bucket (key % the prime bucket count: 1, 2, 3), an
        // ImmutableDictionary<int, string> by hash. 3 + 2 + 3 + 3 + 3 + 2 = 16.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Trees(SortedSet<int> sset, ImmutableSortedSet<string> iset, ImmutableHashSet<int> ihash,
            ImmutableHashSet<Same> same, ConcurrentDictionary<int, string> byKey, ImmutableDictionary<int, string> imap)
        {
            return sset.Count + iset.Count + ihash.Count + same.Count + byKey.Count + imap.Count;
        }

        // Secrets: a parameter, a field and an auto-property whose names say
        // so are <redacted>; CancellationToken and bool never are. Lengths
        // 3 + 7 + 3 + 12 + 1 = 26.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Login(string user, string password, Account account, CancellationToken cancellationToken,
            bool tokenValid)
        {
            return user.Length + password.Length + account.Name.Length + account.ApiKey.Length
                   + (tokenValid ? 1 : 0) + (cancellationToken.IsCancellationRequested ? 100 : 0);
        }

        // Exceptions as arguments: an inner exception, an AggregateException's
        // inner exceptions and its Message as .NET builds it, no inner one.
        // Lengths 21 + 28 + 4 = 53.
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static int Failures(Exception wrapped, AggregateException batch, Exception plain)
        {
            return wrapped.Message.Length + batch.Message.Length + plain.Message.Length;
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
            var byKey = new ConcurrentDictionary<int, string>();
            byKey[3] = "c";
            byKey[1] = "a";
            byKey[2] = "b";
            // From arrays: a params call would add compiler-made inline array
            // helpers to the trace.
            show("trees", Trees(new SortedSet<int> { 30, 10, 20 }, new[] { "pear", "apple" }.ToImmutableSortedSet(),
                new[] { 5, 1, 3 }.ToImmutableHashSet(), new[] { new Same(1), new Same(2), new Same(3) }.ToImmutableHashSet(),
                byKey, ImmutableDictionary<int, string>.Empty.Add(2, "two").Add(1, "one")));
            var account = new Account { Name = "ada", ApiKey = "key-12345678" };
            show("login", Login("ada", "hunter2", account, CancellationToken.None, true));
            show("secret", account.Secret);
            show("failures", Failures(
                new InvalidOperationException("load failed: cfg.json", new System.IO.FileNotFoundException("cfg.json not found")),
                new AggregateException("batch failed", new InvalidOperationException("bad a"), new FormatException("bad b")),
                new TimeoutException("slow")));
        }
    }

    public sealed class Account
    {
        public string Name { get; set; } = "";
        public string ApiKey { get; set; } = "";
        private readonly string _sessionToken = "s-0000";
        public string Secret => _sessionToken;
    }

    // Values that all hash alike (one hash bucket).
    public readonly record struct Same(int V)
    {
        public override int GetHashCode() => 7;
    }
}
