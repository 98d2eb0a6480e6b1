-- Write lock, one node. KEYS[1] writer key, KEYS[2] readers (sorted set: token -> expiry, server ms),
-- KEYS[3] queued writers and KEYS[4] queued readers (sorted sets: token -> arrival, server µs),
-- KEYS[5] expiry of every queue entry ('w:' or 'r:' .. token -> server ms).
-- ARGV[1] token, ARGV[2] ttl ms, ARGV[3] how long a refused writer stays queued without trying again, ms.
-- Sets the writer key only when no writer holds it, no reader's entry is live, and no reader queued before
-- this writer. A refused writer queues, which keeps readers arriving later out until it has had its turn.
-- With KEYS[6] (the node's fencing counter, when fencing is on), raises it by one where it set the key.
-- Runs after queue-prelude.lua and fence-prelude.lua. Returns 1 (or, with KEYS[6], the counter afterwards) when set, else 0.
local token = ARGV[1]
local ticket = redis.call('zscore', KEYS[3], token)
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
if redis.call('exists', KEYS[1]) == 1 or redis.call('zcard', KEYS[2]) > 0 or queued_before(KEYS[4], ticket) then
    enqueue(KEYS[3], 'w', token, tonumber(ARGV[3]))
    return 0
end
redis.call('set', KEYS[1], token, 'px', ARGV[2])
if ticket then
    dequeue(KEYS[3], 'w', token)
end
if KEYS[6] then
    return next_fence(KEYS[6])
end
return 1
