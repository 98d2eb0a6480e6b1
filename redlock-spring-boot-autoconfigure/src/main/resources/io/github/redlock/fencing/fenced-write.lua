-- A fenced write to a Redis key used as storage (RedisFence): KEYS[1] the user's key, KEYS[2] its fence (the highest
-- fencing token a write to the key carried, kept without expiry). ARGV[1] the writer's fencing token, as decimal digits;
-- ARGV[2] the operation: 'set' (ARGV[3] the value, ARGV[4] a time to live in ms or '0' for none), 'del', or 'hset'
-- (ARGV[3] the field, ARGV[4] the value). Applies the operation only when the token is not below the fence, and raises
-- the fence to it; a stale writer changes nothing. Tokens are compared as digit strings padded to 20 characters, exact
-- over the whole range of a Java long (a Lua number is exact only to 2^53).
-- Returns { 1, fence before } when applied, { 0, fence } when refused as stale.
local function padded(digits)
    return string.rep('0', 20 - #digits) .. digits
end
local token = padded(ARGV[1])
local stored = redis.call('get', KEYS[2])
local fence = stored and padded(stored) or padded('0')
if token < fence then
    return { 0, stored }
end
if token > fence then
    redis.call('set', KEYS[2], ARGV[1])
end
local op = ARGV[2]
if op == 'set' then
    if ARGV[4] ~= '0' then
        redis.call('set', KEYS[1], ARGV[3], 'px', ARGV[4])
    else
        redis.call('set', KEYS[1], ARGV[3])
    end
elseif op == 'del' then
    redis.call('del', KEYS[1])
elseif op == 'hset' then
    redis.call('hset', KEYS[1], ARGV[3], ARGV[4])
else
    return redis.error_reply('fenced-write: unknown operation ' .. tostring(op))
end
return { 1, stored or '0' }
