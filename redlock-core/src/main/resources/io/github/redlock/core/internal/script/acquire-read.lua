-- Read lock, one node. KEYS[1] writer key, KEYS[2] readers (sorted set: token -> expiry, server ms),
-- KEYS[3] queued writers and KEYS[4] queued readers (sorted sets: token -> arrival, server µs),
-- KEYS[5] expiry of every queue entry ('w:' or 'r:' .. token -> server ms).
-- ARGV[1] token, ARGV[2] ttl ms, ARGV[3] how long a refused reader stays queued without trying again, ms.
-- Refused while a writer holds the lock or a writer queued before this reader; a refused reader queues, so
-- that a writer arriving later waits for it. Runs after queue-prelude.lua. Returns 1 when added, else 0.
local token = ARGV[1]
local ticket = redis.call('zscore', KEYS[4], token)
if redis.call('exists', KEYS[1]) == 1 or queued_before(KEYS[3], ticket) then
    enqueue(KEYS[4], 'r', token, tonumber(ARGV[3]))
    return 0
end
if ticket then
    dequeue(KEYS[4], 'r', token)
end
local ttl = tonumber(ARGV[2])
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
redis.call('zadd', KEYS[2], now + ttl, token)
if redis.call('pttl', KEYS[2]) < ttl then
    redis.call('pexpire', KEYS[2], ttl)
end
return 1
