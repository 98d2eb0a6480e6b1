-- Read lock, one node. KEYS[1] writer key, KEYS[2] readers (sorted set: token -> expiry, server ms),
-- KEYS[3] queued writers (sorted set: token -> expiry of the registration). ARGV[1] token, ARGV[2] ttl ms.
-- Refused while a writer holds the lock or waits for it (queued writers go first: no writer starves).
-- Times come from the server's clock, so clients need not agree with it. Returns 1 when added, else 0.
if redis.replicate_commands then redis.replicate_commands() end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if redis.call('exists', KEYS[1]) == 1 then
    return 0
end
redis.call('zremrangebyscore', KEYS[3], '-inf', now)
if redis.call('zcard', KEYS[3]) > 0 then
    return 0
end
local ttl = tonumber(ARGV[2])
redis.call('zremrangebyscore', KEYS[2], '-inf', now)
redis.call('zadd', KEYS[2], now + ttl, ARGV[1])
if redis.call('pttl', KEYS[2]) < ttl then
    redis.call('pexpire', KEYS[2], ttl)
end
return 1
