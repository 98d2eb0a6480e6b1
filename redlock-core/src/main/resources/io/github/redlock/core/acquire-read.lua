-- Read lock, one node. KEYS[1] writer key, KEYS[2] readers (sorted set: token -> expiry, server ms),
-- KEYS[3] queued writers and KEYS[4] queued readers (sorted sets: token -> arrival, server µs),
-- KEYS[5] expiry of every queue entry ('w:' or 'r:' .. token -> server ms).
-- ARGV[1] token, ARGV[2] ttl ms, ARGV[3] how long a refused reader stays queued without trying again, ms.
-- Refused while a writer holds the lock or a writer queued before this reader; a refused reader queues, so
-- that a writer arriving later waits for it. Runs after queue-prelude.lua (now, arrival).
-- Returns 1 when added, else 0.
local token = ARGV[1]
local ticket = redis.call('zscore', KEYS[4], token)
local refused = redis.call('exists', KEYS[1]) == 1
if not refused then
    if ticket then
        refused = redis.call('zcount', KEYS[3], '-inf', '(' .. ticket) > 0
    else
        refused = redis.call('zcard', KEYS[3]) > 0
    end
end
if refused then
    local queued = tonumber(ARGV[3])
    redis.call('zadd', KEYS[4], 'NX', arrival, token)
    redis.call('zadd', KEYS[5], now + queued, 'r:' .. token)
    for i = 4, 5 do
        if redis.call('pttl', KEYS[i]) < queued then
            redis.call('pexpire', KEYS[i], queued)
        end
    end
    return 0
end
if ticket then
    redis.call('zrem', KEYS[4], token)
    redis.call('zrem', KEYS[5], 'r:' .. token)
end
local ttl = tonumber(ARGV[2])
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
redis.call('zadd', KEYS[2], now + ttl, token)
if redis.call('pttl', KEYS[2]) < ttl then
    redis.call('pexpire', KEYS[2], ttl)
end
return 1
