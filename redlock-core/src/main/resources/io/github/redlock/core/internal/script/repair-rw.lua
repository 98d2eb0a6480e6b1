-- Lease repair of a read or write lease, one node that restarted empty since the grant and votes again after its
-- quarantine (see repair.lua for the exclusive one). KEYS[1] the writer key, KEYS[2] the readers (sorted set: token ->
-- expiry, server ms). ARGV[1] the token, ARGV[2] the time to live, ms, ARGV[3] 'w' for the writer's lease, 'r' for a
-- reader's. The writer's key is written only where no writer key and no live reader entry exist; a reader's entry only
-- where no writer key exists and the reader's own entry does not (other readers share the lock). It never replaces
-- another holder's key. Returns ARGV[2] when it wrote, or 0, changing nothing.
if redis.replicate_commands then redis.replicate_commands() end
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local ttl = tonumber(ARGV[2])
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if ARGV[3] == 'w' then
    if redis.call('zcard', KEYS[2]) > 0 then
        return 0
    end
    redis.call('set', KEYS[1], ARGV[1], 'px', ttl)
    return ttl
end
if redis.call('zscore', KEYS[2], ARGV[1]) then
    return 0
end
redis.call('zadd', KEYS[2], now + ttl, ARGV[1])
if redis.call('pttl', KEYS[2]) < ttl then
    redis.call('pexpire', KEYS[2], ttl)
end
return ttl
