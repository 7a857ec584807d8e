package dev.loomlab.execution;

import jakarta.interceptor.InterceptorBinding;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a workload resource: each request gets a {@link WaitBudget}, its wait for a thread is drawn
 * from it ({@link WaitBudgetFilters}), and the time to read its body is measured apart ({@link
 * BodyReadInterceptor}), in every mode alike.
 */
@InterceptorBinding
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
public @interface WaitBudgeted {}
