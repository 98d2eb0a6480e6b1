package io.github.redlock.actuate.endpoint;

import java.security.Principal;

import io.github.redlock.core.LockInspection;
import io.github.redlock.core.Redlock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.InvalidEndpointRequestException;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.SecurityContext;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;

/**
 * The {@code redlock} endpoint's write operation over HTTP, an operator's revoke: {@code DELETE /actuator/redlock/{name}}
 * frees the exclusive lock {@code name} (as the application names it, without the key prefix) on every node, whoever
 * holds it, through {@link Redlock#revoke(String)}. It answers 200 with how many nodes held the lock, or 404 when none
 * did; each call is logged at WARN with who asked (the request's principal, or {@code anonymous}), the lock and the
 * count. The Spring Boot starter registers it only when {@code redlock.endpoint.revoke.enabled=true}; without it the
 * operation does not exist, and {@code management.endpoint.redlock.access=read-only} removes it too. Who may call it is
 * the application's security configuration's to decide.
 */
@EndpointWebExtension(endpoint = RedlockEndpoint.class)
public class RedlockEndpointWebExtension {

    private static final Log logger = LogFactory.getLog(RedlockEndpointWebExtension.class);

    /** HTTP 409: the lock is held by another instance than the expected holder ({@link WebEndpointResponse} has no constant for it). */
    private static final int STATUS_CONFLICT = 409;

    private final Redlock redlock;

    /**
     * Creates the extension.
     * @param redlock the lock whose exclusive locks it frees
     */
    public RedlockEndpointWebExtension(Redlock redlock) {
        this.redlock = redlock;
    }

    /**
     * Frees the exclusive lock {@code name} on every node; with {@code expectedHolder}, only where that instance holds it.
     * @param securityContext who asks, for the log
     * @param name the lock's name without the key prefix (one path segment)
     * @param expectedHolder the instance id the operator saw holding it ({@code GET /actuator/redlock/locks/{name}}), or
     * null to free it whoever holds it
     * @return 200 with how many nodes held the lock, 409 (with a count of 0 and the holder) when another instance holds
     * it instead of {@code expectedHolder}, or 404 (with a count of 0) when no node held it
     * @throws InvalidEndpointRequestException (answered 400) if the name, or the expected holder, is blank
     */
    @DeleteOperation
    public WebEndpointResponse<RevokeDescriptor> revoke(SecurityContext securityContext, @Selector String name,
            @Nullable String expectedHolder) {
        Principal principal = securityContext.getPrincipal();
        String who = (principal != null) ? printable(principal.getName()) : "anonymous";
        int nodes;
        try {
            nodes = (expectedHolder != null) ? this.redlock.revoke(name, expectedHolder) : this.redlock.revoke(name);
        }
        catch (IllegalArgumentException ex) {
            String problem = String.valueOf(ex.getMessage());
            logger.warn("Refused to revoke the lock '" + printable(name) + "' at the request of " + who + ": " + printable(problem));
            throw new InvalidEndpointRequestException(problem, "Invalid lock name: " + problem);
        }
        catch (RuntimeException ex) {
            logger.warn("Failed to revoke the lock '" + printable(name) + "' at the request of " + who + ": " + ex.getMessage());
            throw ex;
        }
        if (nodes == 0 && expectedHolder != null) {
            LockInspection now = this.redlock.inspect(name);
            if (now.held() && !expectedHolder.equals(now.holder())) {
                logger.warn("Refused to revoke the lock '" + printable(name) + "' at the request of " + who + ": expected holder "
                        + printable(expectedHolder) + ", but " + now.holder() + " holds it now");
                return new WebEndpointResponse<>(new RevokeDescriptor(name, 0, now.holder()), STATUS_CONFLICT);
            }
        }
        if (nodes == 0) {
            logger.warn("Revoke of the lock '" + printable(name) + "' at the request of " + who + ": no node held it"
                    + ((expectedHolder != null) ? " for " + printable(expectedHolder) : ""));
            return new WebEndpointResponse<>(new RevokeDescriptor(name, 0, null), WebEndpointResponse.STATUS_NOT_FOUND);
        }
        logger.warn("Revoked the lock '" + printable(name) + "' at the request of " + who + ": freed on " + nodes + " of "
                + this.redlock.nodeConnections().size() + " nodes" + ((expectedHolder != null) ? " from " + printable(expectedHolder) : ""));
        return new WebEndpointResponse<>(new RevokeDescriptor(name, nodes, expectedHolder), WebEndpointResponse.STATUS_OK);
    }

    /** Text from the request as one log line: control characters (a forged line break) escaped. */
    private static String printable(String text) {
        StringBuilder printable = new StringBuilder(text.length());
        text.codePoints().forEach((c) -> {
            if (Character.isISOControl(c)) {
                printable.append(String.format("\\u%04x", c));
            }
            else {
                printable.appendCodePoint(c);
            }
        });
        return printable.toString();
    }

    /**
     * The revoke's answer.
     * @param name the lock's name, as asked
     * @param nodes how many nodes held the lock and deleted it
     * @param holder with an expected holder: the one it was freed from, or (409) the instance that holds it instead; else null
     */
    public record RevokeDescriptor(String name, int nodes, @Nullable String holder) implements OperationResponseBody {
    }

}
