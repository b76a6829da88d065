"""The Redis event store's atomic writes, as Lua scripts (``redis_store.py`` runs them with ``EVAL``): opening a run
(the id taken? the live-run limits? Redis just lost every key?), appending a batch (only to a log whose run
Redis still knows), the heartbeat (which re-asserts the run after Redis lost it). Each says its KEYS and ARGV."""

_NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000) "

# KEYS: meta, live (every run), live (the principal's; = live for the anonymous principal), epoch, settling, alive
# ARGV: principal, max live runs, max live runs of the principal (0: none), alive ms, ttl s, the run's member,
# settle ms. A number: wait that many ms, then ask again (Redis has just lost every key: the workers running
# runs write theirs back on their next heartbeat, before any run may take an id or a place).
OPEN = _NOW + """
if redis.call('EXISTS', KEYS[4]) == 0 then
  redis.call('SET', KEYS[4], '1')
  redis.call('SET', KEYS[5], '1', 'PX', ARGV[7])
end
local settling = redis.call('PTTL', KEYS[5])
if settling > 0 then return settling end
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
local per = tonumber(ARGV[3])
if per > 0 and redis.call('ZCARD', KEYS[3]) >= per then return 'live_runs_per_principal' end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 'live_runs' end
redis.call('HSET', KEYS[1], 'principal', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('SET', KEYS[6], '1', 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[6])
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[4]), ARGV[6])
return 'ok'
"""

# KEYS: events, meta. ARGV: maxlen, entry id, n, t, d, ttl s.
# 0: Redis no longer knows the run (restarted without persistence, or flushed): nothing written.
APPEND = """
if redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
local added = redis.pcall('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], ARGV[2], 'n', ARGV[3], 't', ARGV[4], 'd', ARGV[5])
if type(added) == 'table' and added.err then
  if string.find(added.err, 'equal or smaller') then return 2 end  -- a retried batch, stored already
  return redis.error_reply(added.err)
end
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 1
"""

# KEYS: meta, alive, reader, cancel, live, live of the principal[, the thread it is the live run of]
# ARGV: principal, alive ms, ttl s, the run's member, the first event not stored ('' : none)
# -> {1 when the run's meta had to be written again (Redis lost it), a reader attached, the cancel flag}
BEAT = _NOW + """
redis.call('SET', KEYS[2], '1', 'PX', ARGV[2])
local lost = redis.call('HSET', KEYS[1], 'principal', ARGV[1])
if ARGV[5] ~= '' then redis.call('HSET', KEYS[1], 'lost', ARGV[5]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[5], now + tonumber(ARGV[2]), ARGV[4])
redis.call('ZADD', KEYS[6], now + tonumber(ARGV[2]), ARGV[4])
if KEYS[7] then redis.call('EXPIRE', KEYS[7], ARGV[3]) end
return {lost, redis.call('EXISTS', KEYS[3]), redis.call('GET', KEYS[4]) or ''}
"""
