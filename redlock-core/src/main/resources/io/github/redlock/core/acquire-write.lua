-- Write lock, one node. KEYS[1] writer key, KEYS[2] readers (sorted set: token -> expiry, server ms),
-- KEYS[3] queued writers (sorted set: token -> expiry of the registration).
-- ARGV[1] token, ARGV[2] ttl ms, ARGV[3] how long a refused writer stays queued, ms.
-- Sets the writer key only when no writer holds it and no reader's entry is live. A refused writer is
-- queued, which keeps new readers out until it gets the lock, gives up or stops retrying.
-- Returns 1 when set, else 0.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if redis.call('exists', KEYS[1]) == 1 or redis.call('zcard', KEYS[2]) > 0 then
    local queued = tonumber(ARGV[3])
    redis.call('zremrangebyscore', KEYS[3], '-inf', now)
    redis.call('zadd', KEYS[3], now + queued, ARGV[1])
    if redis.call('pttl', KEYS[3]) < queued then
        redis.call('pexpire', KEYS[3], queued)
    end
    return 0
end
redis.call('set', KEYS[1], ARGV[1], 'px', ARGV[2])
redis.call('zrem', KEYS[3], ARGV[1])
return 1
