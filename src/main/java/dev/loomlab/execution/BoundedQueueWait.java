package dev.loomlab.execution;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a workload resource: each request's wait for its thread is measured and bounded ({@link
 * QueueWait}) before the method runs, in both modes alike.
 */
@InterceptorBinding
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface BoundedQueueWait {}
