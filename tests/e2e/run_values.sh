#!/usr/bin/env bash
# End-to-end test: trace tests/targets/Values with libclrtrace.so and check
# that every kind of argument and return value is decoded.
#
# Usage: tests/e2e/run_values.sh [path/to/libclrtrace.so]
#
# Without an argument (or CLRTRACE_LIB), the profiler is built with CMake
# into a temporary directory. Checks:
#   1. traced and untraced runs print the same stdout and exit with the same
#      code (7); the traced run writes nothing to stderr;
#   2. the decoded call lines, written by hand from the target's C# source
#      (Kinds.cs, Abi.cs, Generics.cs, Program.cs), are in the trace;
#   3. the trace's shape: header, one timed line per call, balanced blocks,
#      a summary whose counts match the lines and whose times add up;
#   4. the limits (CLRTRACE_STRING_CHARS, CLRTRACE_ARRAY_ITEMS,
#      CLRTRACE_STRUCT_DEPTH) at their value and one past it, and
#      CLRTRACE_SUMMARY=0;
#   5. bad option values: one stderr line, an untraced run, same output and
#      exit code;
#   6. CLRTRACE_ALL=1 (every framework method planned too) runs unchanged.
# Ends with "run_values.sh: N passed, M failed"; exits non-zero when a check
# failed (2 when the setup did).
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$here/lib_checks.sh"
# The profiler (built when no library is given), the work directory.
ct_setup values "${1:-}"

# --------------------------------------------------------------- the target
echo "== building tests/targets/Values"
app=$(ct_dotnet_build "$root/tests/targets/Values" "$work") && [[ -n "$app" ]] ||
    { echo "ERROR: dotnet build of tests/targets/Values failed" >&2; exit 2; }

# The settings that load the profiler, for run_traced (lib_checks.sh).

# ------------------------------------------------------------ 1. same run
echo "== untraced and traced runs"
run_plain plain
check_eq "untraced run exits with 7" 7 "$(cat "$work/plain.rc")"
check "untraced stdout has simple=-111 (Abi.SimpleArgs)" grep -qx 'simple=-111' "$work/plain.out"
trace="$work/traced.txt"
run_traced traced --
ct_same_as_plain traced
check "traced run writes nothing to stderr" ct_empty "$work/traced.err"
check "the traced run wrote a trace to $trace" test -s "$trace"
[[ -s "$trace" ]] || { echo "ERROR: the traced run wrote no trace (is the profiler loading?)" >&2; exit 2; }

# ------------------------------------------------- 2. the decoded calls
echo "== decoded values"
# Primitives, chars and bools, floats as .NET prints them (shortest round
# trip, E notation past 15 digits or below 1e-4), native ints, decimals with
# their scale.
ct_has "$trace" 1 'Demo.Kinds.Ints(sbyte sb=-8, byte b=200, short s=-300, ushort us=60000, int i=-70000, uint ui=4000000000, long l=-9000000000, ulong ul=18000000000000000000) -> long -9000070000'
ct_has "$trace" 1 "Demo.Kinds.Chars(bool yes=true, bool no=false, char c='x', char nl='\\n', char q='\\'') -> char 'y'"
ct_has "$trace" 1 'Demo.Kinds.Floats(float f=-4.3, double d=1.5, float big=1E+10, double tiny=2.5E-07) -> double 3'
# nint and nuint in hex (-42 = -0x2a; -84 = -0x54).
ct_has "$trace" 1 'Demo.Kinds.Natives(nint n=-0x2a, nuint u=0x2a) -> nint -0x54'
ct_has "$trace" 1 'Demo.Kinds.Money(decimal price=19.99, decimal qty=-0.500) -> decimal 39.98'
# Well-known structs: DateTime in ISO 8601 as .NET's "o" format (Z for Utc, no
# suffix for Unspecified, "(local)" for Local), TimeSpan as .NET's "c"
# format, Guid as "D", Half as its shortest text, Int128/UInt128 in decimal;
# 1.02:03:04.5 - 1:30 = 1.00:33:04.5.
ct_has "$trace" 1 'Demo.Kinds.WellKnown(DateTime utc=2024-05-06T07:08:09.1234567Z, DateTime plain=1999-12-31T23:59:59.0000000, DateTime local=2000-01-01T00:00:00.0000000 (local), TimeSpan span=1.02:03:04.5000000, TimeSpan neg=-01:30:00, Guid id=0f8fad5b-d9cb-469f-a165-70867728950e, Half h=1.5, Int128 big=-170141183460469231731687303715884105728, UInt128 ubig=340282366920938463463374607431768211455) -> TimeSpan 1.00:33:04.5000000'
# SIMD vectors by element, as .NET's ToString writes them; 1 + 8 = 9.
ct_has "$trace" 1 'Demo.Kinds.Simd(Vector128<int> a=<1, 2, 3, 4>, Vector2 p=<1.5, 2>, Vector3 q=<1, 2, 3>, Vector4 r=<1, 2, 3, 4>, Vector64<byte> b=<1, 2, 3, 4, 5, 6, 7, 8>, Vector256<double> d=<1, 2, 3, 4>) -> int 9'
# Spans: a char span's text (cut at 64 characters, with its length), other
# spans' elements (8 by default, --array-items), the default span empty.
ct_has "$trace" 1 'Demo.Kinds.Spans(ReadOnlySpan<char> text="hello", Span<int> ints=[3] {4, 5, 6}, ReadOnlySpan<double> none=[0] {}, ReadOnlySpan<char> cut="xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"...(100 chars), Span<long> many=[12] {10, 20, 30, 40, 50, 60, 70, 80, ...}) -> int 8'
ct_has "$trace" 1 'Demo.Kinds.Dates(DateTime[] days=DateTime[2] {0001-01-01T00:00:00.0000000, 9999-12-31T23:59:59.9999999}, Nullable<DateTime> maybe=2038-01-19T03:14:07.0000000, Nullable<Guid> none=null) -> int 2'
# DateOnly as yyyy-MM-dd, TimeOnly as HH:mm:ss with the fraction's trailing
# zeros dropped (TimeOnly.MaxValue is 23:59:59.9999999); 2024-02-29 + 1 day.
ct_has "$trace" 1 'Demo.Kinds.DateAndTime(DateOnly day=2024-02-29, TimeOnly at=13:45:30, TimeOnly precise=13:45:30.1234567, TimeOnly half=00:00:00.5, TimeOnly last=23:59:59.9999999, Nullable<DateOnly> first=0001-01-01, object boxed=TimeOnly 07:05:00) -> DateOnly 2024-03-01'
# Index and Range as .NET's ToString writes them: ^1 from the end, both ends
# of a Range always (^2.. is ^2..^0, ..^1 is 0..^1, .. is 0..^0).
ct_has "$trace" 1 'Demo.Kinds.Slices(Index first=2, Index last=^1, Range mid=1..3, Range tail=^2..^0, Range head=0..^1, Range all=0..^0, object boxed=Index ^3) -> Range 1..^1'
# [InlineArray(N)] structs by their N elements, as an array's (8 by
# default, then ", ..."); the return value is each of q's doubled.
ct_has "$trace" 1 'Demo.Kinds.InlineArrays(Quad q={2, 4, 6, 8}, Ten many={1, 2, 3, 4, 5, 6, 7, 8, ...}, Words words={"x", "yz"}) -> Quad {4, 8, 12, 16}'
# StringBuilders by their text, whatever their chunks, cut as strings are
# (64 characters, then the length); 6 + 11 = 17.
ct_has "$trace" 1 'Demo.Kinds.Builders(StringBuilder one="abcdef", StringBuilder chunked="abcdefghijk", StringBuilder longer="0123456789012345678901234567890123456789012345678901234567890123"...(100 chars), StringBuilder none=null, object boxed="in \"object\"") -> int 17'
# Strings: escaped as C# writes them, null, empty, cut at 64 characters
# (CLRTRACE_STRING_CHARS) with the full length, UTF-8 out.
ct_has "$trace" 1 'Demo.Kinds.Strings(string s="Hello, test!", string empty="", string none=null, string esc="tab\there \"quoted\" back\\slash") -> int 12'
ct_has "$trace" 1 'Demo.Kinds.LongString(string text="0123456789012345678901234567890123456789012345678901234567890123"...(100 chars)) -> int 100'
ct_has "$trace" 1 $'Demo.Kinds.Unicode(string s="h\u00e9llo \u2713") -> int 7'
# Objects by their actual class, boxed primitives and well-known structs by value;
# arrays with their elements (8 by default);
# a multi-dimensional array and an array of structs by type only.
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.Describe\(Shape shape=Demo\.Circle\{R=2\}\) -> string "circle"$'
ct_has "$trace" 1 'Demo.Kinds.Objects(object boxed=int 42, object text="text", object nothing=null) -> int 42'
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.Boxes\(object d=double 1\.5, object day=DateTime 2024-01-02T00:00:00\.0000000Z, object flag=bool true, IComparable c=long 7, object e=Demo\.Color Green\) -> int 3$'
ct_has "$trace" 1 'Demo.Kinds.Arrays(int[] ints=int[3] {1, 2, 3}, string[] words=string[2] {"a", "b"}, double[] empty=double[0] {}, int[] none=null, long[] many=long[20] {1, 2, 3, 4, 5, 6, 7, 8, ...}) -> int 5'
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.MoreArrays\(Color\[\] colors=Color\[2\] \{Red, Blue\}, Point\[\] points=Point\[2\] \{\{X=0, Y=0\}, \{X=0, Y=0\}\}, int\[,\] grid=int\[2,3\] \{\{0, 0, 0\}, \{0, 0, 0\}\}\) -> int 10$'
# Enums by name, [Flags] combinations, a value with no name, byte and long
# underlying types.
ct_has "$trace" 1 'Demo.Kinds.Enums(Color c=Green, Tiny t=Two, Wide w=Low, Access a=Read | Write, Access none=None, Color odd=7) -> Access Read | Write | Exec'
# Nullable<T> of a primitive, a struct and an enum; null.
ct_has "$trace" 1 'Demo.Kinds.Nullables(Nullable<int> some=42, Nullable<int> none=null, Nullable<Point> pt={X=1, Y=2}, Nullable<Color> col=Blue) -> Nullable<int> 43'
# Structs field by field: nested, with a string field, five levels deep
# (the fifth elided at the default depth 4), an auto-property's field.
ct_has "$trace" 1 'Demo.Kinds.Lines(Line l={A={X=1, Y=2}, B={X=3, Y=4}}) -> double 2'
ct_has "$trace" 1 'Demo.Kinds.TakeNamed(Named n={Name="widget", Id=7}) -> int 7'
ct_has "$trace" 1 'Demo.Kinds.Deep(Level1 v={A=1, Inner={B=2, Inner={C=3, Inner={D=4, Inner={...}}}}}) -> int 6'
ct_has "$trace" 1 'Demo.Kinds.Warmer(Temperature t={Celsius=21.5}) {'
ct_has "$trace" 1 '} -> Temperature {Celsius=22.5}'
ct_has_re "$trace" 1 'Demo\.Temperature\.get_Celsius\(this=0x[0-9a-f]+ -> \{Celsius=21\.5\}\) -> double 21\.5$'
# ref / out / in: the address and the value at entry (out: before the
# callee writes it), then at return each target in the caller's stack read
# again (counter 10 -> 11, result = 11 * 2, text "abc" + "0"); a target in
# the heap (an array element) is not; a pointer: its address.
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.Refs\(ref int counter=0x[0-9a-f]+ -> 10, out int result=0x[0-9a-f]+ -> -1, in Point origin=0x[0-9a-f]+ -> \{X=0, Y=0\}, ref string text=0x[0-9a-f]+ -> "abc"\)  counter=11  result=22  origin=\{X=0, Y=0\}  text="abc0"$'
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.TryGet\(string key="key", out int v=0x[0-9a-f]+ -> 0\) -> bool true  v=12$'
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.Inc\(ref long x=0x[0-9a-f]+ -> 5\) -> long 6  x=6$'
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.Inc\(ref long x=0x[0-9a-f]+ -> 5\) -> long 6$'
# ref readonly (C# 12: [In] and RequiresLocationAttribute), in and ref side by
# side (Names.ReadOnlyRef(ref rx, in ry, ref rz), rx=1, ry=2, rz=3).
ct_has_re "$trace" 1 '^.* Demo\.Names\.ReadOnlyRef\(ref readonly int x=0x[0-9a-f]+ -> 1, in int y=0x[0-9a-f]+ -> 2, ref int z=0x[0-9a-f]+ -> 3\) -> int 6  x=1  y=2  z=3$'
ct_has_re "$trace" 1 '^.* Demo\.Kinds\.Deref\(int\* p=0x[0-9a-f]+\) -> int 77$'
ct_has "$trace" 1 'Demo.Shapes.Scale(Point p={X=1, Y=2}, double k=1.5) -> Point {X=1.5, Y=3}'
# this: a class instance, a struct (by address), a virtual override called
# through the base class, an interface method.
ct_has_re "$trace" 1 '^.* Demo\.Counter\.Add\(this=Demo\.Counter@0x[0-9a-f]+, int by=5\) -> int 5$'
ct_has_re "$trace" 1 '^.* Demo\.Vec\.Length\(this=0x[0-9a-f]+ -> \{X=3, Y=4\}\) -> double 5$'
ct_has_re "$trace" 1 '^.* Demo\.Circle\.Area\(this=Demo\.Circle@0x[0-9a-f]+\) -> double 12\.56$'
ct_has_re "$trace" 1 '^.* Demo\.English\.Greet\(this=Demo\.English@0x[0-9a-f]+, string name="Ann"\) -> string "Hello, Ann"$'
# An instance method of a generic class called on a null `this` (a delegate
# closed over null, Program.cs): it runs as untraced (41 + 1), and both
# engines record it under its definition (the IL engine cannot ask a null
# `this` for its class).
ct_has "$trace" 1 'Demo.Maybe<T>.Answer(this=null, int x=41) -> int 42'
if [[ ${CLRTRACE_ENGINE:-il} == il ]]; then
# The IL engine: the entry of generic code hands its probes the type handles
# of the instantiation that runs, so shared code (reference types) shows
# the actual types too (docs/tracer.md, "The IL-probe engine"); the values
# are Program.cs's.
ct_has_re "$trace" 1 '^.* Demo\.Box<int>\.Get\(this=Demo\.Box<int>@0x[0-9a-f]+\) -> int 5$'
ct_has_re "$trace" 1 '^.* Demo\.Box<int>\.Set\(this=Demo\.Box<int>@0x[0-9a-f]+, int value=6\)$'
ct_has_re "$trace" 1 '^.* Demo\.Box<string>\.Get\(this=Demo\.Box<string>@0x[0-9a-f]+\) -> string "hi"$'
ct_has_re "$trace" 1 '^.* Demo\.Box<string>\.Set\(this=Demo\.Box<string>@0x[0-9a-f]+, string value="there"\)$'
ct_has_re "$trace" 1 '^.* Demo\.Box<Circle>\.Get\(this=Demo\.Box<Demo\.Circle>@0x[0-9a-f]+\) -> Circle Demo\.Circle\{R=1\}$'
ct_has_re "$trace" 1 '^.* Demo\.Pair<int, string>\.Key\(this=Demo\.Pair<int, string>@0x[0-9a-f]+\) -> int 3$'
ct_has_re "$trace" 1 '^.* Demo\.Pair<int, string>\.Value\(this=Demo\.Pair<int, string>@0x[0-9a-f]+\) -> string "three"$'
ct_has "$trace" 1 'Demo.Util.Id<int>(int x=5) -> int 5'
ct_has "$trace" 1 'Demo.Util.Id<string>(string x="five") -> string "five"'
ct_has_re "$trace" 1 '^.* Demo\.Util\.Id<ValueTuple<List<string>, bool>>\(ValueTuple<List<string>, bool> x=\{Item1=List<string>\(1\) \{"x"\}, Item2=true\}\)'
ct_has "$trace" 0 '__Canon'
ct_has "$trace" 0 'Demo.Box<T>'
ct_has "$trace" 1 'Demo.Util.Unwrap<int>(Wrapper<int> w={Value=9, Tag=1}) -> int 9'
ct_has "$trace" 1 'Demo.Util.CountOf<double>(double[] items=double[2] {1.5, 2.5}) -> int 2'
else
# Generics. Unshared code (value-type arguments) shows the actual types;
# shared code (reference types: System.__Canon) keeps the declared name and
# shows each object's own class - a string's text (Program.cs passes "hi",
# "there", "three", "five").
ct_has_re "$trace" 1 '^.* Demo\.Box<int>\.Get\(this=Demo\.Box<int>@0x[0-9a-f]+\) -> int 5$'
ct_has_re "$trace" 1 '^.* Demo\.Box<int>\.Set\(this=Demo\.Box<int>@0x[0-9a-f]+, int value=6\)$'
ct_has_re "$trace" 1 '^.* Demo\.Box<T>\.Get\(this=Demo\.Box<string>@0x[0-9a-f]+\) -> T "hi"$'
ct_has_re "$trace" 1 '^.* Demo\.Box<T>\.Set\(this=Demo\.Box<string>@0x[0-9a-f]+, T value="there"\)$'
ct_has_re "$trace" 1 '^.* Demo\.Box<T>\.Get\(this=Demo\.Box<Demo\.Circle>@0x[0-9a-f]+\) -> T Demo\.Circle\{R=1\}$'
ct_has_re "$trace" 1 '^.* Demo\.Pair<int, TValue>\.Key\(this=Demo\.Pair<int, string>@0x[0-9a-f]+\) -> int 3$'
ct_has_re "$trace" 1 '^.* Demo\.Pair<int, TValue>\.Value\(this=Demo\.Pair<int, string>@0x[0-9a-f]+\) -> TValue "three"$'
ct_has "$trace" 1 'Demo.Util.Id<int>(int x=5) -> int 5'
ct_has "$trace" 1 'Demo.Util.Id<T>(T x="five") -> T "five"'
# Shared code over a struct holding a reference type: the runtime shares
# Id<ValueTuple<List<string>, bool>> as Id<ValueTuple<System.__Canon, bool>>;
# the stand-in reads as the generic parameter's declared name (ValueTuple's
# T1), and never reaches the text anywhere; the value shows the real class.
ct_has_re "$trace" 1 '^.* Demo\.Util\.Id<ValueTuple<T1, bool>>\(ValueTuple<T1, bool> x=\{Item1=List<string>\(1\) \{"x"\}, Item2=true\}\)'
ct_has "$trace" 0 '__Canon'
ct_has "$trace" 1 'Demo.Util.Unwrap<int>(Wrapper<int> w={Value=9, Tag=1}) -> int 9'
ct_has "$trace" 1 'Demo.Util.CountOf<double>(double[] items=double[2] {1.5, 2.5}) -> int 2'
fi
ct_has "$trace" 1 'Demo.Outer.Inner.Twice(int x=21) -> int 42'
ct_has_re "$trace" 1 '^.* Demo\.Outer<int>\.Holder\.Get\(this=Demo\.Outer<int>\.Holder@0x[0-9a-f]+\) -> int 3$'
# An iterator (Names.cs): Countdown(2) yields 2 and 1, its MoveNext shown as
# the iterator with its bool result; the third returns false (the end). The
# state is 0 before the first MoveNext and 1 after each yield.
ct_has "$trace" 1 'iterator Demo.Names.Countdown(int n=2, <>1__state=0) -> bool true'
ct_has "$trace" 1 'iterator Demo.Names.Countdown(int n=2, <>1__state=1) -> bool true'
ct_has "$trace" 1 'iterator Demo.Names.Countdown(int n=2, <>1__state=1) -> bool false'
# Tuples with element names (TupleElementNamesAttribute): the type as C#
# writes it, the value's fields by the names; nested; a long tuple's nine
# elements in one list (not Rest={...}); an element without a name keeps
# Item2; a return value's names (Names.cs; Program.cs passes (7, "Ada"),
# Bounds(5, 3), (1, ("x", 2)), (1, ..., 9), (4, 5)).
ct_has "$trace" 1 'Demo.Names.Person((int Id, string Name) p={Id=7, Name="Ada"}) -> string "Ada7"'
ct_has "$trace" 1 'Demo.Names.Bounds(int a=5, int b=3) -> (int Min, int Max) {Min=3, Max=5}'
ct_has "$trace" 1 'Demo.Names.Nested((int A, (string B, int C) D) t={A=1, D={B="x", C=2}}) -> int 3'
ct_has "$trace" 1 'Demo.Names.Long((int A1, int A2, int A3, int A4, int A5, int A6, int A7, int A8, int A9) t={A1=1, A2=2, A3=3, A4=4, A5=5, A6=6, A7=7, A8=8, A9=9}) -> int 10'
ct_has "$trace" 1 'Demo.Names.Partly((int First, int) t={First=4, Item2=5}) -> int 9'
# A generic collection inside another: its name short in its type arguments
# too, as the parameter's type is written (Names.Lookup({["a"]={1, 2}}, {3})).
ct_has "$trace" 1 'Demo.Names.Lookup(Dictionary<string, List<int>> map=Dictionary<string, List<int>>(1) {["a"]=List<int>(2) {1, 2}}, List<int> list=List<int>(1) {3}) -> int 2'
ct_has "$trace" 0 'System.Collections.Generic.List<int>'
# The BCL's everyday types (Everyday.cs, issue 25). Uri by its original
# string, Version as "1.2.3.4" (5.6: Build and Revision undefined), IPAddress
# as its text (2001:db8::1, IPv6Loopback ::1); Segments of /a/b?q=1 are
# "/", "a/", "b": 3 + Revision 4 + Minor 6 + 4 + 16 bytes + 0 = 33.
ct_has "$trace" 1 'Demo.Everyday.Net(Uri uri="https://example.com/a/b?q=1", Version version=1.2.3.4, Version shortVersion=5.6, IPAddress v4=127.0.0.1, IPAddress v6=2001:db8::1, IPAddress loopback6=::1) -> int 33'
# An Encoding by its name (UTF8 65001 utf-8, Unicode 1200 utf-16, Latin1 28591
# iso-8859-1), CultureInfo by its name (the invariant culture's is "");
# 1 + 200 + 591 + 5 + 0 + 5 + 3 = 805.
ct_has "$trace" 1 'Demo.Everyday.Text(Encoding encoding=utf-8, Encoding unicode=utf-16, Encoding latin1=iso-8859-1, CultureInfo culture="en-US", CultureInfo invariant="", ReadOnlyMemory<char> rom=ReadOnlyMemory<char>(5) "world", Memory<char> mem=Memory<char>(3) {'"'a', 'b', 'c'"'}) -> int 805'
# A Type as typeof(its full name), a MethodInfo by its method's full name
# (typeof(Everyday).GetMethod("Net")); "Point" + "Dictionary`2" + "Net" = 20.
ct_has "$trace" 1 'Demo.Everyday.Reflection(Type type=typeof(Demo.Point), Type generic=typeof(System.Collections.Generic.Dictionary<string, int>), MethodInfo method=Demo.Everyday.Net) -> int 20'
# Task<T> by its Status, its Result once it ran to completion (Task.CompletedTask
# is whatever Task class the runtime keeps), a ValueTask<T> by its result when
# it holds none, else by the Task it holds (Source=, in the Task's form), a
# CancellationToken None or by IsCancellationRequested, a Lazy<T> by its value
# once created; 42 + 0 + 2 + 5 + 7 + 0 + 8 + 40 + 0 = 104.
ct_has_re "$trace" 1 '^.* Demo\.Everyday\.Tasks\(Task<int> done=System\.Threading\.Tasks\.Task<int>\{Status=RanToCompletion, Result=42\}, Task<string> pending=System\.Threading\.Tasks\.Task<string>\{Status=WaitingForActivation\}, Task plain=System\.Threading\.Tasks\.Task(<System\.Threading\.Tasks\.VoidTaskResult>)?\{Status=RanToCompletion\}, ValueTask<int> vt=\{Result=5\}, ValueTask<int> waiting=\{Source=System\.Threading\.Tasks\.Task<int>\{Status=RanToCompletion, Result=7\}\}, CancellationToken none=None, CancellationToken cancelled=\{IsCancellationRequested=true\}, Lazy<int> made=System\.Lazy<int>\{Value=40\}, Lazy<string> unmade=System\.Lazy<string>\{IsValueCreated=false\}\) -> int 104$'
# A ConcurrentDictionary as a dictionary (["one"]=1), a SortedDictionary in
# key order (added b then a), a LinkedList<T> as a list, from its head
# (AddLast 1, 2, 3), ImmutableList.Create(7, 8, 9) in order, an
# ImmutableDictionary of one entry; a BitArray as its bools (new
# BitArray(10), bits 0 and 3 set), 8 of them by default;
# 1 + 2 + 3 + 3 + 1 + 10 = 20.
ct_has "$trace" 1 'Demo.Everyday.Collections(ConcurrentDictionary<string, int> concurrent=ConcurrentDictionary<string, int>(1) {["one"]=1}, SortedDictionary<string, int> sorted=SortedDictionary<string, int>(2) {["a"]=1, ["b"]=2}, LinkedList<int> linked=LinkedList<int>(3) {1, 2, 3}, ImmutableList<int> ilist=ImmutableList<int>(3) {7, 8, 9}, ImmutableDictionary<string, int> idict=ImmutableDictionary<string, int>(1) {["k"]=11}, BitArray bits=BitArray(10) {true, false, false, true, false, false, false, false, ...}) -> int 20'
# Trees in order (SortedSet {30, 10, 20}, ImmutableSortedSet "pear", "apple"),
# hash sets by hash (an int's hash is itself: 5, 1, 3), one bucket of three
# colliding values (Same hashes to 7: the first, then the others as added),
# a ConcurrentDictionary<int, string> by bucket (keys 3, 1, 2: bucket = key
# mod a prime), an ImmutableDictionary<int, string> by hash (2, then 1);
# 3 + 2 + 3 + 3 + 3 + 2 = 16.
ct_has "$trace" 1 'Demo.Everyday.Trees(SortedSet<int> sset=SortedSet<int>(3) {10, 20, 30}, ImmutableSortedSet<string> iset=ImmutableSortedSet<string>(2) {"apple", "pear"}, ImmutableHashSet<int> ihash=ImmutableHashSet<int>(3) {1, 3, 5}, ImmutableHashSet<Same> same=ImmutableHashSet<Same>(3) {{V=1}, {V=2}, {V=3}}, ConcurrentDictionary<int, string> byKey=ConcurrentDictionary<int, string>(3) {[1]="a", [2]="b", [3]="c"}, ImmutableDictionary<int, string> imap=ImmutableDictionary<int, string>(2) {[1]="one", [2]="two"}) -> int 16'
# Secrets (Everyday.Login, issue 27): a parameter, a field and an
# auto-property whose names say so read <redacted> (password; ApiKey,
# _sessionToken), as do a property's getter and setter (get_ApiKey, set_ApiKey,
# get_Secret); a CancellationToken and a bool named so never do; 26.
ct_has "$trace" 1 'Demo.Everyday.Login(string user="ada", string password=<redacted>, Account account=Demo.Account{Name="ada", ApiKey=<redacted>, _sessionToken=<redacted>}, CancellationToken cancellationToken=None, bool tokenValid=true) {'
ct_has "$trace" 1 'Demo.Account.set_ApiKey(this=Demo.Account@'
ct_has_re "$trace" 1 'Demo\.Account\.set_ApiKey\(this=Demo\.Account@0x[0-9a-f]+, string value=<redacted>\)$'
ct_has_re "$trace" 1 'Demo\.Account\.get_Secret\(this=Demo\.Account@0x[0-9a-f]+\) -> string <redacted>$'
ct_has "$trace" 0 'hunter2'
ct_has "$trace" 0 'key-12345678'
# Exceptions as arguments: the inner exception (a null one left out), an
# AggregateException's Message as .NET builds it ("batch failed (bad a)
# (bad b)") and its InnerExceptions; 21 + 28 + 4 = 53.
ct_has "$trace" 1 'Demo.Everyday.Failures(Exception wrapped=System.InvalidOperationException{Message="load failed: cfg.json", InnerException=System.IO.FileNotFoundException{Message="cfg.json not found"}}, AggregateException batch=System.AggregateException{Message="batch failed (bad a) (bad b)", InnerExceptions=Exception[2] {System.InvalidOperationException{Message="bad a"}, System.FormatException{Message="bad b"}}}, Exception plain=System.TimeoutException{Message="slow"}) -> int 53'
# The runtime's ABI cases (Abi.cs): arguments in registers, in the scratch
# buffer and on the stack; float/double and mixed-eightbyte returns.
ct_has "$trace" 1 'Demo.Abi.SimpleArgs(int i=-123, float f=-4.3, string s="Hello, test!") -> int -111'
ct_has "$trace" 1 'Demo.Abi.TakeIntDouble(IntDouble v={I=7, D=2.5}) -> double 9.5'
ct_has "$trace" 1 'Demo.Abi.MakeBig(int k=1) -> Big64 {A={I=1, D=1.5}, B={I=2, D=2.5}, C={I=3, D=3.5}, D={I=4, D=4.5}}'
ct_has "$trace" 1 'Demo.Abi.TakeBig(Big64 v={A={I=1, D=1.5}, B={I=2, D=2.5}, C={I=3, D=3.5}, D={I=4, D=4.5}}) -> int 10'
ct_has "$trace" 1 'Demo.Abi.TakeInts(IntsOnly v={A=1, B=2, C=3}) -> long 6'
ct_has "$trace" 1 'Demo.Abi.Fp32x2Alone(Fp32x2 a={X=0.5, Y=1.25}) -> float 1.75'
ct_has "$trace" 1 'Demo.Abi.Fp32x2Pair(Fp32x2 a={X=0.5, Y=1.25}, Fp32x2 b={X=2, Y=-3}) -> float -2.5'
ct_has "$trace" 1 'Demo.Abi.Fp32x2Mixed(int i=1, Fp32x2 a={X=0.5, Y=1.25}, double d=0.25, Fp32x2 b={X=2, Y=-3}, long l=100) -> double 98.75'
ct_has "$trace" 1 'Demo.Abi.Fp32x3Alone(Fp32x3 a={X=0.5, Y=1.25, Z=2.5}) -> float 4.25'
ct_has "$trace" 1 'Demo.Abi.Fp32x3Pair(Fp32x3 a={X=0.5, Y=1.25, Z=2.5}, Fp32x3 b={X=2, Y=-3, Z=4.75}) -> float 7.25'
ct_has "$trace" 1 'Demo.Abi.Fp32x3Mixed(int i=1, Fp32x3 a={X=0.5, Y=1.25, Z=2.5}, double d=0.25, Fp32x3 b={X=2, Y=-3, Z=4.75}, long l=100) -> double 108.5'
ct_has "$trace" 1 'Demo.Abi.Fp32x4Alone(Fp32x4 a={X=0.5, Y=1.25, Z=2.5, W=8}) -> float 8.5'
ct_has "$trace" 1 'Demo.Abi.Fp32x4Pair(Fp32x4 a={X=0.5, Y=1.25, Z=2.5, W=8}, Fp32x4 b={X=2, Y=-3, Z=4.75, W=-16}) -> float -8'
ct_has "$trace" 1 'Demo.Abi.Fp32x4Mixed(int i=1, Fp32x4 a={X=0.5, Y=1.25, Z=2.5, W=8}, double d=0.25, Fp32x4 b={X=2, Y=-3, Z=4.75, W=-16}, long l=100) -> double 93.25'
ct_has "$trace" 1 'Demo.Abi.Fp64x2Alone(Fp64x2 a={X=0.5, Y=1.25}) -> double 1.75'
ct_has "$trace" 1 'Demo.Abi.Fp64x2Pair(Fp64x2 a={X=0.5, Y=1.25}, Fp64x2 b={X=2, Y=-3}) -> double -1.75'
ct_has "$trace" 1 'Demo.Abi.Fp64x2Mixed(int i=1, Fp64x2 a={X=0.5, Y=1.25}, double d=0.25, Fp64x2 b={X=2, Y=-3}, long l=100) -> double 99.5'
ct_has "$trace" 1 'Demo.Abi.Fp64x3Alone(Fp64x3 a={X=0.5, Y=1.25, Z=2.5}) -> double 3'
ct_has "$trace" 1 'Demo.Abi.Fp64x3Pair(Fp64x3 a={X=0.5, Y=1.25, Z=2.5}, Fp64x3 b={X=2, Y=-3, Z=4.75}) -> double 7.25'
ct_has "$trace" 1 'Demo.Abi.Fp64x3Mixed(int i=1, Fp64x3 a={X=0.5, Y=1.25, Z=2.5}, double d=0.25, Fp64x3 b={X=2, Y=-3, Z=4.75}, long l=100) -> double 108.5'
ct_has "$trace" 1 'Demo.Abi.Fp64x4Alone(Fp64x4 a={X=0.5, Y=1.25, Z=2.5, W=8}) -> double 8.5'
ct_has "$trace" 1 'Demo.Abi.Fp64x4Pair(Fp64x4 a={X=0.5, Y=1.25, Z=2.5, W=8}, Fp64x4 b={X=2, Y=-3, Z=4.75, W=-16}) -> double -8'
ct_has "$trace" 1 'Demo.Abi.Fp64x4Mixed(int i=1, Fp64x4 a={X=0.5, Y=1.25, Z=2.5, W=8}, double d=0.25, Fp64x4 b={X=2, Y=-3, Z=4.75, W=-16}, long l=100) -> double 93.25'
ct_has "$trace" 1 'Demo.Abi.NineStructs(int n=100, IntDouble a={I=1, D=1.5}, IntDouble b={I=2, D=2.5}, IntDouble c={I=3, D=3.5}, IntDouble d={I=4, D=4.5}, IntDouble e={I=5, D=5.5}, IntDouble f={I=6, D=6.5}, IntDouble g={I=7, D=7.5}, IntDouble h={I=8, D=8.5}, IntDouble i={I=9, D=9.5}) -> int 145'
ct_has "$trace" 1 'Demo.Abi.RetFloat(float a=1.5, float b=-2.25) -> float -3.375'
ct_has "$trace" 1 'Demo.Abi.RetDouble(double a=0.5, double b=3.25) -> double 1.625'
ct_has "$trace" 1 'Demo.Abi.MakeIntegerSse(long a=-7, double b=0.125) -> IntegerSse {A=-7, B=0.125}'
ct_has "$trace" 1 'Demo.Abi.MakeSseInteger(double a=0.375, long b=9) -> SseInteger {A=0.375, B=9}'
ct_has "$trace" 1 'Demo.Abi.MakeMixedSse(int a=-3, float b=1.5, double c=2.75) -> MixedSse {A=-3, B=1.5, C=2.75}'
ct_has "$trace" 1 'Demo.Abi.MakeSseMixed(double a=-0.5, int b=11, float c=6.5) -> SseMixed {A=-0.5, B=11, C=6.5}'
ct_has "$trace" 1 'Demo.Abi.MakeMixedMixed(int a=1, float b=2.5, int c=-3, float d=4.5) -> MixedMixed {A=1, B=2.5, C=-3, D=4.5}'
ct_has "$trace" 1 'Demo.Abi.MakeFp32x2(float x=0.75, float y=-1.5) -> Fp32x2 {X=0.75, Y=-1.5}'
ct_has "$trace" 1 'Demo.Abi.MakeFp64x2(double x=-0.75, double y=1.5) -> Fp64x2 {X=-0.75, Y=1.5}'
ct_has "$trace" 1 'Demo.Abi.MakeInts(int a=4, int b=5, long c=6000000000) -> IntsOnly {A=4, B=5, C=6000000000}'
# An exception leaving Fail (a leaf: folded) and Outer (a block), caught in
# Catch, which returns normally.
ct_has "$trace" 1 'Demo.Thrower.Catch(int code=3) {'
ct_has "$trace" 1 'Demo.Thrower.Outer(int code=3) {'
ct_has "$trace" 1 'Demo.Thrower.Fail(int code=3) -> exception System.InvalidOperationException: "code 3"'
ct_has_re "$trace" 1 '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s +\} exception System\.InvalidOperationException: "code 3"$'
ct_has "$trace" 1 '} -> string "code 3"'
# Main opens the trace and closes it last on its thread.
ct_has "$trace" 1 'Demo.Program.Main(string[] args=string[0] {}) {'
ct_has_re "$trace" 1 '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s  \} -> int 7$'

# ----------------------------------------------------------- 3. its shape
echo "== trace shape"
ct_has_re "$trace" 1 '^# clrtrace: dotnet .*Values\.dll, pid [0-9]+, [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z, filter: my code \(framework by public key token\)$'
ct_has "$trace" 1 '#  TIME(s)    TID   DURATION  CALL'
# The call lines: everything before the summary that is not a comment.
calls=$(sed '/^# summary: /,$d' "$trace" | grep -vE '^(#|$)' || true)
bad=$(grep -vE '^ *[0-9]+\.[0-9]{6} +[0-9]+ ' <<<"$calls" || true)
check_eq "every call line has a time and a thread" "" "$(head -n 3 <<<"$bad")"
others=$(grep -vE '^ *[0-9.]+ +[0-9]+ +([0-9.]+ [mu]?s)? +((iterator )?Demo\.|\})' <<<"$calls" || true)
check_eq "no calls outside Demo with the default filter" "" "$(head -n 3 <<<"$others")"
# Two threads: Main's and the worker's (Program.cs starts one Thread).
main_tid=$(grep -F 'Demo.Program.Main(' "$trace" | awk '{print $2}')
worker_tid=$(grep -F 'Demo.Worker.Run(int n=12) -> int 144' "$trace" | awk '{print $2}')
check "Worker.Run runs on its own thread (main $main_tid, worker $worker_tid)" \
    test -n "$main_tid" -a -n "$worker_tid" -a "$main_tid" != "$worker_tid"
# Per thread, every "{" is closed by a "}".
for tid in $main_tid $worker_tid; do
    opens=$(awk -v t="$tid" '$2 == t && / \{$/' "$trace" | wc -l)
    closes=$(awk -v t="$tid" '$2 == t && / \}( |$)/' "$trace" | wc -l)
    check_eq "thread $tid: as many blocks closed as opened ($opens)" "$opens" "$closes"
done
# Every call ends on exactly one line with a duration: the summary's call
# count is the number of such lines; its function count the table's rows.
timed=$(grep -cE '^ *[0-9.]+ +[0-9]+ +[0-9.]+ [mu]?s ' "$trace" || true)
summary=$(grep -E '^# summary: ' "$trace" || true)
# (The match is made here, not inside `check`, which runs its command in a
# subshell: BASH_REMATCH is read below.)
if [[ "$summary" =~ ^#\ summary:\ ([0-9]+)\ calls,\ ([0-9]+)\ functions,\ 2\ threads,\ 0\ events\ dropped$ ]]; then
    ct_ok "summary line: N calls, M functions, 2 threads, 0 events dropped"
else
    ct_fail "summary line: N calls, M functions, 2 threads, 0 events dropped" "actual: '$summary'"
fi
check_eq "the summary's call count is the trace's timed lines" "$timed" "${BASH_REMATCH[1]:-?}"
# (Thrower's exception adds the EXCEPTIONS column after SELF.)
rows=$(sed -n '/^#  CALLS      TOTAL       SELF  EXCEPTIONS  FUNCTION$/,/^# clrtrace: shutdown/p' "$trace" | grep -cE '^ +[0-9]+ ' || true)
check_eq "the summary's function count is its table's rows" "$rows" "${BASH_REMATCH[2]:-?}"
# Per function: the calls in the table are the lines ending a call of it
# (Show is called once per result line of stdout).
shows=$(wc -l <"$work/plain.out")
ct_has_re "$trace" 1 "^ +$shows +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.Program\.Show\$"
# Box<T>.Get: the shared code's two calls (string, Circle); the IL engine
# tells them apart (Box<string>.Get once).
if [[ ${CLRTRACE_ENGINE:-il} == il ]]; then
    ct_has_re "$trace" 1 '^ +1 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.Box<string>\.Get$'
else
    ct_has_re "$trace" 1 '^ +2 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +0  Demo\.Box<T>\.Get$'
fi
ct_has_re "$trace" 1 '^ +1 +[0-9.]+ [mu]?s +[0-9.]+ [mu]?s +1  Demo\.Thrower\.Fail$'
# SELF adds up to the TOTAL of the two outermost calls (Main and the
# worker's lambda), within the table's rounding (0.05 us a row and 0.05 ms
# for rows printed in ms).
check "summary times add up (SELF never above TOTAL; SELF sums to the roots' TOTAL)" awk '
    function ns(v, u) { return u == "us" ? v * 1e3 : u == "ms" ? v * 1e6 : v * 1e9 }
    /^#  CALLS/ { on = 1; next }
    /^# / { on = 0 }
    on && NF >= 7 {
        self += ns($4, $5); slack += ($5 == "us" ? 50 : $5 == "ms" ? 5e4 : 5e6)
        if ($7 == "Demo.Program.Main" || $7 ~ /^Demo\.Program\.<>c__DisplayClass[0-9_]+\.<Main>b__/)
            { roots += ns($2, $3); slack += ($3 == "us" ? 50 : $3 == "ms" ? 5e4 : 5e6) }
        if (ns($4, $5) > ns($2, $3) + 1e-9) bad = bad " " $7
    }
    END {
        if (bad != "") { print "SELF above TOTAL for" bad; exit 1 }
        d = self - roots; if (d < 0) d = -d
        if (d > slack) { printf "SELF sums to %.0f ns, roots TOTAL %.0f ns\n", self, roots; exit 1 }
    }' "$trace"

# ------------------------------------------------------------ 4. limits
echo "== limits"
# Strings: at the limit the text is whole, one below it is cut.
run_traced s12 CLRTRACE_STRING_CHARS=12 --
ct_same_as_plain s12
ct_has "$work/s12.txt" 1 'Demo.Abi.SimpleArgs(int i=-123, float f=-4.3, string s="Hello, test!") -> int -111'
# At --object-depth 1 the inner exceptions are by class and address, and the
# aggregate's Message is its own, then "..." (the rest is not known).
run_traced depth1 CLRTRACE_OBJECT_DEPTH=1 --
ct_has_re "$work/depth1.txt" 1 'Demo\.Everyday\.Failures\(Exception wrapped=System\.InvalidOperationException\{Message="load failed: cfg\.json", InnerException=System\.IO\.FileNotFoundException@0x[0-9a-f]+\}, AggregateException batch=System\.AggregateException\{Message="batch failed"\.\.\., InnerExceptions=Exception\[2\] \{System\.InvalidOperationException@0x[0-9a-f]+, System\.FormatException@0x[0-9a-f]+\}\}'
# --no-redact shows them; --redact NAME adds names (user).
run_traced noredact CLRTRACE_REDACT=0 --
ct_has "$work/noredact.txt" 1 'Demo.Everyday.Login(string user="ada", string password="hunter2", Account account=Demo.Account{Name="ada", ApiKey="key-12345678", _sessionToken="s-0000"}, CancellationToken cancellationToken=None, bool tokenValid=true) {'
run_traced redactuser CLRTRACE_REDACT_NAMES=user:nothing --
ct_has "$work/redactuser.txt" 1 'Demo.Everyday.Login(string user=<redacted>, string password=<redacted>,'
# A secret never reaches the trace file: the UTF-16 bytes of "hunter2" are in
# an uncompressed trace only with --no-redact.
for mode in redact no-redact; do
    on=1
    [[ $mode == no-redact ]] && on=0
    run_traced "secret-$mode" "CLRTRACE_TRACE=$work/secret-$mode.clrt" CLRTRACE_COMPRESS=0 \
        CLRTRACE_INCLUDE=Demo.Everyday.Login "CLRTRACE_REDACT=$on" --
    found=$(LC_ALL=C grep -c -a -P 'h\x00u\x00n\x00t\x00e\x00r\x002\x00' "$work/secret-$mode.clrt" ||
        true)
    check_eq "a binary trace ($mode): the password's UTF-16 bytes are in it: $((1 - on))" \
        "$((1 - on))" "$((found > 0))"
done
run_traced s11 CLRTRACE_STRING_CHARS=11 --
ct_has "$work/s11.txt" 1 'Demo.Abi.SimpleArgs(int i=-123, float f=-4.3, string s="Hello, test"...(12 chars)) -> int -111'
# A Uri's text is cut as a string's (27 characters).
ct_has "$work/s11.txt" 1 'Demo.Everyday.Net(Uri uri="https://exa"...(27 chars), Version version=1.2.3.4'
run_traced s0 CLRTRACE_STRING_CHARS=0 --
ct_has "$work/s0.txt" 1 'Demo.Abi.SimpleArgs(int i=-123, float f=-4.3, string s=""...(12 chars)) -> int -111'
# Arrays: three elements at a limit of 3, cut at 2.
run_traced a3 CLRTRACE_ARRAY_ITEMS=3 --
ct_has "$work/a3.txt" 1 'int[] ints=int[3] {1, 2, 3}, string[] words=string[2] {"a", "b"}'
run_traced a2 CLRTRACE_ARRAY_ITEMS=2 --
ct_has "$work/a2.txt" 1 'int[] ints=int[3] {1, 2, ...}, string[] words=string[2] {"a", "b"}'
# An IPv6 address needs its eight words: fewer, no text (IPv4 needs none).
ct_has "$work/a2.txt" 1 'IPAddress v4=127.0.0.1, IPAddress v6=<IPv6 address>, IPAddress loopback6=<IPv6 address>) -> int 33'
ct_has "$work/a3.txt" 1 'IPAddress v6=<IPv6 address>'
# Struct depth: Level1 nests five structs.
run_traced d5 CLRTRACE_STRUCT_DEPTH=5 --
ct_has "$work/d5.txt" 1 'Demo.Kinds.Deep(Level1 v={A=1, Inner={B=2, Inner={C=3, Inner={D=4, Inner={E=5}}}}}) -> int 6'
run_traced d1 CLRTRACE_STRUCT_DEPTH=1 --
ct_has "$work/d1.txt" 1 'Demo.Kinds.Deep(Level1 v={A=1, Inner={...}}) -> int 6'
ct_has "$work/d1.txt" 1 'Demo.Kinds.Lines(Line l={A={...}, B={...}}) -> double 2'
run_traced d0 CLRTRACE_STRUCT_DEPTH=0 --
ct_has "$work/d0.txt" 1 'Demo.Kinds.Deep(Level1 v={...}) -> int 6'
run_traced nosum CLRTRACE_SUMMARY=0 --
ct_same_as_plain nosum
ct_has "$work/nosum.txt" 0 '# summary:'
ct_has "$work/nosum.txt" 1 'Demo.Abi.SimpleArgs(int i=-123, float f=-4.3, string s="Hello, test!") -> int -111'

# ------------------------------------------------------ 5. bad options
echo "== bad option values"
ct_bad_option badchars CLRTRACE_STRING_CHARS=abc \
    'clrtrace: CLRTRACE_STRING_CHARS=abc is not valid (use a whole number from 0 to 1000000); the program runs untraced'
ct_bad_option baditems CLRTRACE_ARRAY_ITEMS=-1 \
    'clrtrace: CLRTRACE_ARRAY_ITEMS=-1 is not valid (use a whole number from 0 to 1000000); the program runs untraced'
ct_bad_option baddepth CLRTRACE_STRUCT_DEPTH=9 \
    'clrtrace: CLRTRACE_STRUCT_DEPTH=9 is not valid (use a whole number from 0 to 8); the program runs untraced'
ct_bad_option badsummary CLRTRACE_SUMMARY=maybe \
    'clrtrace: CLRTRACE_SUMMARY=maybe is not valid (use 1 or 0); the program runs untraced'

# ------------------------------------------------------ 6. CLRTRACE_ALL
echo "== CLRTRACE_ALL=1"
run_traced all CLRTRACE_ALL=1 --
ct_same_as_plain all
check "CLRTRACE_ALL=1 writes nothing to stderr" ct_empty "$work/all.err"
check "CLRTRACE_ALL=1: framework calls in the trace" grep -qE '^ *[0-9.]+ +[0-9]+ .*System\.' "$work/all.txt"
ct_has "$work/all.txt" 1 'Demo.Abi.SimpleArgs(int i=-123, float f=-4.3, string s="Hello, test!") -> int -111'
ct_has "$work/all.txt" 0 '<damaged>'

if ((ct_fails)); then
    echo "---- trace (first 60 lines of $trace) ----"
    head -n 60 "$trace"
fi
ct_end run_values.sh
