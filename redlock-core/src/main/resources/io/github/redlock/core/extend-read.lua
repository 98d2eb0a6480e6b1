-- Read lock extension, one node. KEYS[1] readers (sorted set: token -> expiry, server ms).
-- ARGV[1] token, ARGV[2] new ttl ms. Renews the token's expiry only while its entry is live, and keeps the
-- set at least as long-lived. Returns 1 when extended, else 0.
if redis.replicate_commands then redis.replicate_commands() end
local expiry = redis.call('zscore', KEYS[1], ARGV[1])
if not expiry then
    return 0
end
local time = redis.call('time')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
if tonumber(expiry) <= now then
    return 0
end
local ttl = tonumber(ARGV[2])
redis.call('zadd', KEYS[1], now + ttl, ARGV[1])
if redis.call('pttl', KEYS[1]) < ttl then
    redis.call('pexpire', KEYS[1], ttl)
end
return 1
