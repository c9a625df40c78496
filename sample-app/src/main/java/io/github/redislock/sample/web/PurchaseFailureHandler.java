package io.github.redislock.sample.web;

import io.github.redislock.LockException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.sample.shop.SkuNotOnSaleException;
import io.github.redislock.sample.shop.SoldOutException;

import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;

/**
 * Turns the ways a purchase can fail into distinct HTTP statuses (RFC 9457 problem bodies), so that a client
 * can tell "try again" (409) from "give up" (410).
 */
@RestControllerAdvice
public class PurchaseFailureHandler {

    /** Another purchase of the SKU held the lock for the whole wait time. Worth retrying. */
    @ExceptionHandler(LockNotAcquiredException.class)
    public ResponseEntity<ProblemDetail> busy(LockNotAcquiredException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.CONFLICT,
                "Too many buyers at once; nothing was bought. Try again.");
        problem.setTitle("Busy");
        problem.setProperty("waitedMillis", ex.getWaited().toMillis());
        return ResponseEntity.status(HttpStatus.CONFLICT).header(HttpHeaders.RETRY_AFTER, "1").body(problem);
    }

    @ExceptionHandler(SoldOutException.class)
    public ProblemDetail soldOut(SoldOutException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.GONE, ex.getMessage());
        problem.setTitle("Sold out");
        problem.setProperty("sku", ex.sku());
        return problem;
    }

    @ExceptionHandler(SkuNotOnSaleException.class)
    public ProblemDetail notOnSale(SkuNotOnSaleException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.NOT_FOUND, ex.getMessage());
        problem.setTitle("Not on sale");
        problem.setProperty("sku", ex.sku());
        return problem;
    }

    /** Redis itself failed while the lock was taken: nothing ran, and it is not the buyer's fault. */
    @ExceptionHandler(LockException.class)
    public ProblemDetail lockUnavailable(LockException ex) {
        ProblemDetail problem = ProblemDetail.forStatusAndDetail(HttpStatus.SERVICE_UNAVAILABLE,
                "The lock service is unavailable; nothing was bought.");
        problem.setTitle("Lock unavailable");
        return problem;
    }
}
