-- Write lock, one node. KEYS[1] writer key, KEYS[2] readers (sorted set: token -> expiry, server ms),
-- KEYS[3] queued writers and KEYS[4] queued readers (sorted sets: token -> arrival, server µs),
-- KEYS[5] expiry of every queue entry ('w:' or 'r:' .. token -> server ms).
-- ARGV[1] token, ARGV[2] ttl ms, ARGV[3] how long a refused writer stays queued without trying again, ms.
-- Sets the writer key only when no writer holds it, no reader's entry is live, and no reader queued before
-- this writer. A refused writer queues, which keeps readers arriving later out until it has had its turn.
-- Runs after queue-prelude.lua (now, arrival). Returns 1 when set, else 0.
local token = ARGV[1]
local ticket = redis.call('zscore', KEYS[3], token)
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
local refused = redis.call('exists', KEYS[1]) == 1 or redis.call('zcard', KEYS[2]) > 0
if not refused then
    if ticket then
        refused = redis.call('zcount', KEYS[4], '-inf', '(' .. ticket) > 0
    else
        refused = redis.call('zcard', KEYS[4]) > 0
    end
end
if refused then
    local queued = tonumber(ARGV[3])
    redis.call('zadd', KEYS[3], 'NX', arrival, token)
    redis.call('zadd', KEYS[5], now + queued, 'w:' .. token)
    for i = 3, 5, 2 do
        if redis.call('pttl', KEYS[i]) < queued then
            redis.call('pexpire', KEYS[i], queued)
        end
    end
    return 0
end
redis.call('set', KEYS[1], token, 'px', ARGV[2])
if ticket then
    redis.call('zrem', KEYS[3], token)
    redis.call('zrem', KEYS[5], 'w:' .. token)
end
return 1
