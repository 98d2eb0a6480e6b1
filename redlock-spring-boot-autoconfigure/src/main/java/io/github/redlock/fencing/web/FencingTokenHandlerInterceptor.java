package io.github.redlock.fencing.web;

import java.util.List;

import io.github.redlock.fencing.JdbcFence;
import io.github.redlock.fencing.StaleFencingTokenException;
import io.github.redlock.fencing.internal.TransactionGuards;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;

import org.springframework.http.HttpStatus;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.util.Assert;
import org.springframework.web.servlet.AsyncHandlerInterceptor;

/**
 * The server side of the {@value FencingTokenHeader#NAME} header: a downstream service's writes to a named resource are
 * made only with a token not below the resource's fence, so that a caller that paused past its lease while a later
 * holder's request wrote cannot write over it. Register it for the paths that write the resource:
 * <pre>{@code
 * @Bean
 * WebMvcConfigurer fencedInventory(JdbcFence fence) {
 *     return new WebMvcConfigurer() {
 *         public void addInterceptors(InterceptorRegistry registry) {
 *             registry.addInterceptor(new FencingTokenHandlerInterceptor(fence, "inventory")).addPathPatterns("/inventory/**");
 *         }
 *     };
 * }
 * }</pre>
 * For each request it:
 * <ul>
 * <li>answers 428 (Precondition Required) without the header, and 400 when it is not a token (a number above 0);</li>
 * <li>answers 409 (Conflict) at once when the resource's fence is above the token already (a cheap early refusal);</li>
 * <li>otherwise lets the handler run, and gives every transaction the handler begins on the request's thread (its
 * {@code @Transactional} service's) the fence check of a {@code @Redlocked(fenced = true)} method: before it commits, the
 * transaction advances the resource's fence to the token, in the same transaction as the writes, or fails with
 * {@link StaleFencingTokenException} and rolls back, which the starter answers with 409 (Conflict) as well.</li>
 * </ul>
 * The check in the transaction is what gives the guarantee: two requests may pass the early check together, and only
 * the commit orders them. It needs the starter's listener on the transaction manager, which the auto-configuration adds
 * with {@code redlock.fencing=true}, and transactions of the fence's {@code DataSource} on the request's thread (not an
 * asynchronous handler's other threads). A request with a token whose handler began no such transaction is logged at
 * warning level: its writes, if any, were not fenced.
 */
public final class FencingTokenHandlerInterceptor implements AsyncHandlerInterceptor {

    private static final Log logger = LogFactory.getLog(FencingTokenHandlerInterceptor.class);

    private final TransactionGuards guards;

    private final String resource;

    /** The request attribute of this interceptor's guard: one of its own, beside other interceptors' of other resources. */
    private final String attribute;

    /**
     * Creates the interceptor of one resource.
     * @param fence the fence of the resource, in the database the handlers write to
     * @param resource the resource's name, e.g. the name of the lock its callers take ({@code inventory}); at most 255
     * characters
     */
    public FencingTokenHandlerInterceptor(JdbcFence fence, String resource) {
        Assert.notNull(fence, "fence must not be null");
        Assert.hasLength(resource, "resource must not be empty");
        Assert.isTrue(resource.length() <= 255, () -> "resource must be at most 255 characters, was " + resource.length());
        this.guards = new TransactionGuards(fence);
        this.resource = resource;
        this.attribute = FencingTokenHandlerInterceptor.class.getName() + ".guard@" + Integer.toHexString(System.identityHashCode(this));
    }

    /**
     * Checks the header, and opens the fence check of the request's transactions.
     * @param request the request
     * @param response the response
     * @param handler the handler
     * @return whether the handler runs
     * @throws Exception when writing an error response fails
     */
    @Override
    public boolean preHandle(HttpServletRequest request, HttpServletResponse response, Object handler) throws Exception {
        if (request.getDispatcherType() != DispatcherType.REQUEST || request.getAttribute(this.attribute) != null) {
            // A forward, include, error or asynchronous dispatch of a request checked already: its guard, if any, is the
            // first dispatch's, closed as that one completes or goes asynchronous.
            return true;
        }
        String header = request.getHeader(FencingTokenHeader.NAME);
        if (header == null) {
            response.sendError(HttpStatus.PRECONDITION_REQUIRED.value(), "Writes to '" + this.resource + "' need the "
                    + FencingTokenHeader.NAME + " header: the fencing token of the caller's lock");
            return false;
        }
        long token = parse(header);
        if (token <= 0) {
            response.sendError(HttpStatus.BAD_REQUEST.value(), "The " + FencingTokenHeader.NAME + " header must be a "
                    + "fencing token (a number above 0), was '" + header + "'");
            return false;
        }
        long fence = this.guards.fence().fence(this.resource);
        if (fence > token) {
            response.sendError(HttpStatus.CONFLICT.value(), new StaleFencingTokenException(this.resource, token, fence).getMessage());
            return false;
        }
        String owner = "The request " + request.getMethod() + " " + request.getRequestURI() + " with " + FencingTokenHeader.NAME
                + " " + token;
        request.setAttribute(this.attribute, this.guards.open(owner, List.of(this.resource), () -> token, () -> false,
                TransactionSynchronizationManager.isActualTransactionActive()));
        return true;
    }

    /**
     * Closes the fence check as the handler goes asynchronous: transactions on its other threads do not get it.
     * @param request the request
     * @param response the response
     * @param handler the handler
     */
    @Override
    public void afterConcurrentHandlingStarted(HttpServletRequest request, HttpServletResponse response, Object handler) {
        close(request, null);
    }

    /**
     * Closes the fence check of the request's transactions.
     * @param request the request
     * @param response the response
     * @param handler the handler
     * @param ex what the handler threw, or null
     */
    @Override
    public void afterCompletion(HttpServletRequest request, HttpServletResponse response, Object handler, @Nullable Exception ex) {
        close(request, ex);
    }

    private void close(HttpServletRequest request, @Nullable Exception ex) {
        if (request.getDispatcherType() != DispatcherType.REQUEST
                || !(request.getAttribute(this.attribute) instanceof TransactionGuards.Guard guard)) {
            return;
        }
        request.removeAttribute(this.attribute);
        guard.close();
        if (!guard.checked() && ex == null && logger.isWarnEnabled()) {
            logger.warn(request.getMethod() + " " + request.getRequestURI() + " carried " + FencingTokenHeader.NAME + " for '"
                    + this.resource + "', but its handler began no transaction on the request's thread that the fence could "
                    + "check: its writes, if any, were not fenced. Write in a @Transactional method of the fence's DataSource.");
        }
    }

    private static long parse(String header) {
        try {
            return Long.parseLong(header.trim());
        }
        catch (NumberFormatException ex) {
            return -1;
        }
    }

}
