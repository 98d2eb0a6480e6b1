-- An operator's revoke of an exclusive lock, one node, whoever holds it. KEYS[1] the lock's key (<prefix><name>),
-- ARGV[1] its release channel. Deletes the key only when it is an exclusive lock: a string with a time to live, as
-- SET NX PX leaves it (this library's and other Redlock clients'). Any other type, or a string without an expiry,
-- is not a lock and stays. A read-write lock's parts, the hash of who waits and the fencing counter are other keys
-- (the byte 0xFF, which no UTF-8 name contains, follows the prefix or the name in theirs), so they stay too.
-- Where it deleted the key, publishes its value, the holder's token, as release.lua does: waiters try again at once.
-- With ARGV[2], the expected holder's instance id, it deletes only a token of that holder (<instance-id>:<random>,
-- the random part 22 characters): another holder's lock stays. Returns 1 when deleted, 0 when the node held no such
-- lock, -1 when another holder than the expected one holds it.
if redis.call('type', KEYS[1])['ok'] ~= 'string' or redis.call('pttl', KEYS[1]) < 0 then
    return 0 -- -1: no expiry, which no lock has; -2: gone meanwhile
end
local token = redis.call('get', KEYS[1])
if ARGV[2] and (#token ~= #ARGV[2] + 23 or string.sub(token, 1, #ARGV[2] + 1) ~= ARGV[2] .. ':') then
    return -1
end
redis.call('del', KEYS[1])
redis.pcall('publish', ARGV[1], token) -- pcall: an ACL may forbid the channel
return 1
