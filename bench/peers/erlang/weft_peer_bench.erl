%% Erlang distribution on weft's tell and ask workloads (docs/benchmarks.md
%% harnesses 2 and 3), for `bench/run --peers`: two nodes, two OS
%% processes, one distribution connection over loopback.
%%
%%   erl -name b@127.0.0.1 ... -run weft_peer_bench server
%%       registers weft_peer_sink (a gen_server) and waits;
%%   erl -name a@127.0.0.1 ... -run weft_peer_bench client B@127.0.0.1 Out \
%%       Tell64 Tell1K Tell16K AskSamples AskWarmup Asks MaxSeconds
%%       runs every workload against it, writes one JSON object to Out, halts.
%%
%% Tell: `!` to {weft_peer_sink, Node} with a binary body of 64 B, 1 KB or
%% 16 KB; then a gen_server:call, which the sink handles after every tell
%% before it (one sender, one connection, in order), stops the clock. The
%% distribution's own backpressure (busy_dist_port suspends the sender)
%% bounds what is buffered, so the loop needs no credit window.
%%
%% Ask: gen_server:call({weft_peer_sink, Node}, {echo, Body}) with 100 B each
%% way: one caller for the round-trip samples (after warm-up), then 1, 4, 16,
%% 64 callers each calling in a loop for asks/s.
-module(weft_peer_bench).
-behaviour(gen_server).
-export([server/0, client/1]).
-export([init/1, handle_call/3, handle_cast/2, handle_info/2]).

-define(SINK, weft_peer_sink).

server() ->
    {ok, _} = gen_server:start({local, ?SINK}, ?MODULE, [], []),
    ok.

init([]) -> {ok, 0}.

handle_call({echo, Body}, _From, N) -> {reply, Body, N};
handle_call(reset, _From, _N) -> {reply, ok, 0};
handle_call(sync, _From, N) -> {reply, N, N}.

handle_cast(_Msg, N) -> {noreply, N}.

handle_info({tell, _Body}, N) -> {noreply, N + 1};
handle_info(_Other, N) -> {noreply, N}.

client([Node0, Out | Numbers]) ->
    [T64, T1K, T16K, AskSamples, AskWarmup, Asks, MaxSeconds] = [list_to_integer(X) || X <- Numbers],
    Node = list_to_atom(Node0),
    Sink = {?SINK, Node},
    ok = wait_for(Sink, 100),
    Deadline = MaxSeconds * 1000000000,
    Tells = [tell_run(Sink, Size, Count, Deadline) || {Size, Count} <- [{64, T64}, {1024, T1K}, {16384, T16K}]],
    Rtt = rtt_run(Sink, AskSamples, AskWarmup, Deadline),
    Rates = [{K, asks_run(Sink, K, Asks, Deadline)} || K <- [1, 4, 16, 64]],
    Json = ["{\"peer\":\"erlang\",\"version\":\"", erlang:system_info(otp_release),
            "\",\"schedulers\":", integer_to_list(erlang:system_info(schedulers_online)),
            ",\"tell\":{", join([tell_json(T) || T <- Tells]), "},",
            "\"ask_rtt_us\":", Rtt, ",",
            "\"asks_per_s\":{", join([io_lib:format("\"~b\":~.1f", [K, R]) || {K, R} <- Rates]), "}}\n"],
    ok = file:write_file(Out, Json),
    halt(0).

%% The server node may still be starting: up to Tries calls 100 ms apart.
wait_for(_Sink, 0) -> {error, no_server};
wait_for(Sink, Tries) ->
    try gen_server:call(Sink, reset, 1000) of
        ok -> ok
    catch
        exit:_ -> timer:sleep(100), wait_for(Sink, Tries - 1)
    end.

now_ns() -> erlang:monotonic_time(nanosecond).

tell_run(Sink, Size, Count, Deadline) ->
    Body = binary:copy(<<"x">>, Size),
    ok = gen_server:call(Sink, reset, infinity),
    T0 = now_ns(),
    Sent = tell_loop(Sink, {tell, Body}, Count, 0, T0 + Deadline),
    Handled = gen_server:call(Sink, sync, infinity),
    Seconds = (now_ns() - T0) / 1.0e9,
    Handled =:= Sent orelse io:format(standard_error, "sent ~b, sink handled ~b~n", [Sent, Handled]),
    Rate = Handled / Seconds,
    io:format(standard_error, "erlang tell ~b B: ~.1f msg/s~n", [Size, Rate]),
    {Size, Handled, Seconds, Rate}.

%% The deadline is checked every 1024 messages, so time is read rarely.
tell_loop(_Sink, _Msg, Count, Count, _End) -> Count;
tell_loop(Sink, Msg, Count, Sent, End) when Sent band 1023 =:= 0 ->
    case now_ns() > End of
        true -> Sent;
        false -> Sink ! Msg, tell_loop(Sink, Msg, Count, Sent + 1, End)
    end;
tell_loop(Sink, Msg, Count, Sent, End) ->
    Sink ! Msg,
    tell_loop(Sink, Msg, Count, Sent + 1, End).

tell_json({Size, Handled, Seconds, Rate}) ->
    io_lib:format("\"~b\":{\"count\":~b,\"seconds\":~.4f,\"msg_per_s\":~.1f,\"mb_per_s\":~.2f}",
                  [Size, Handled, Seconds, Rate, Rate * Size / 1.0e6]).

rtt_run(Sink, Samples, Warmup, Deadline) ->
    Body = binary:copy(<<"q">>, 100),
    End = now_ns() + Deadline,
    _ = call_loop(Sink, Body, Warmup, End, fun(_) -> ok end),
    Tab = ets:new(rtt, [duplicate_bag]),
    N = call_loop(Sink, Body, Samples, End, fun(Ns) -> ets:insert(Tab, {Ns}) end),
    Sorted = lists:sort([Ns || {Ns} <- ets:tab2list(Tab)]),
    Mean = lists:sum(Sorted) / max(1, N) / 1000,
    P = fun(Q) -> percentile(Sorted, N, Q) end,
    io:format(standard_error, "erlang ask: p50 ~.1f us over ~b samples~n", [P(50), N]),
    io_lib:format("{\"samples\":~b,\"mean\":~.2f,\"p50\":~.2f,\"p90\":~.2f,\"p99\":~.2f,\"p99.9\":~.2f,\"max\":~.2f}",
                  [N, Mean, P(50), P(90), P(99), P(99.9), lists:last(Sorted) / 1000]).

call_loop(Sink, Body, Count, End, Record) -> call_loop(Sink, Body, Count, End, Record, 0).

call_loop(_Sink, _Body, Count, _End, _Record, Count) -> Count;
call_loop(Sink, Body, Count, End, Record, Done) ->
    T0 = now_ns(),
    Body = gen_server:call(Sink, {echo, Body}, infinity),
    T1 = now_ns(),
    Record(T1 - T0),
    case T1 > End of
        true -> Done + 1;
        false -> call_loop(Sink, Body, Count, End, Record, Done + 1)
    end.

percentile(Sorted, N, Q) ->
    Rank = min(N, max(1, round(Q / 100 * (N - 1)) + 1)),
    lists:nth(Rank, Sorted) / 1000.

%% K callers, each calling in a loop, share Total calls: K in flight.
asks_run(Sink, K, Total, Deadline) ->
    Body = binary:copy(<<"q">>, 100),
    Self = self(),
    T0 = now_ns(),
    End = T0 + Deadline,
    Each = Total div K,
    Pids = [spawn_link(fun() -> Self ! {done, self(), call_loop(Sink, Body, Each, End, fun(_) -> ok end)} end)
            || _ <- lists:seq(1, K)],
    Done = lists:sum([receive {done, Pid, D} -> D end || Pid <- Pids]),
    Rate = Done / ((now_ns() - T0) / 1.0e9),
    io:format(standard_error, "erlang asks, ~b in flight: ~.1f/s~n", [K, Rate]),
    Rate.

join([]) -> [];
join([H | T]) -> [H | [[",", X] || X <- T]].
