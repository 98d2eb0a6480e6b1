-- Compare-and-extend: while KEYS[1] holds this client's token ARGV[1], makes its time to live at least ARGV[2] ms.
-- Never shortens it: an extension that arrives late, or asks for less than the key has left, changes nothing.
-- Returns the key's time to live in ms afterwards (at least 1), or 0 when the key is gone or held by someone else.
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 0
end
local ttl = tonumber(ARGV[2])
local left = redis.call('pttl', KEYS[1])
if left < ttl then
    redis.call('pexpire', KEYS[1], ttl)
    return ttl
end
return left
