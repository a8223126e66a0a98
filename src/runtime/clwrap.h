/* clvision — every OpenCL call the library makes goes through a thin wrapper
 * (clwrap.c). The wrappers
 *   - count live OpenCL objects (buffers, kernels, programs, events, queues)
 *     per cl_context and for the whole process, so tests can show that
 *     nothing is leaked (clv_context_get_stats, clv_debug_live_objects);
 *   - in a build with -Dfault_injection=true, can fail the Nth call
 *     (clv_debug_fail_at) to exercise every error path.
 * The renaming below is seen by all library sources through internal.h;
 * clwrap.c itself defines CLV_CLWRAP_IMPL and calls the real functions. */
#ifndef CLV_CLWRAP_H
#define CLV_CLWRAP_H

#include <stdint.h>

#include <CL/cl.h>


cl_int clv__clGetPlatformIDs(cl_uint, cl_platform_id *, cl_uint *);
cl_int clv__clGetPlatformInfo(cl_platform_id, cl_platform_info, size_t, void *, size_t *);
cl_int clv__clGetDeviceIDs(cl_platform_id, cl_device_type, cl_uint, cl_device_id *, cl_uint *);
cl_int clv__clGetDeviceInfo(cl_device_id, cl_device_info, size_t, void *, size_t *);
cl_context clv__clCreateContext(const cl_context_properties *, cl_uint, const cl_device_id *,
                                void(CL_CALLBACK *)(const char *, const void *, size_t, void *),
                                void *, cl_int *);
cl_int clv__clReleaseContext(cl_context);
cl_int clv__clRetainContext(cl_context);
cl_int clv__clGetContextInfo(cl_context, cl_context_info, size_t, void *, size_t *);
cl_int clv__clRetainDevice(cl_device_id);
cl_int clv__clReleaseDevice(cl_device_id);
cl_command_queue clv__clCreateCommandQueue(cl_context, cl_device_id, cl_command_queue_properties,
                                           cl_int *);
cl_int clv__clReleaseCommandQueue(cl_command_queue);
cl_int clv__clRetainCommandQueue(cl_command_queue);
cl_int clv__clGetCommandQueueInfo(cl_command_queue, cl_command_queue_info, size_t, void *,
                                  size_t *);
cl_mem clv__clCreateBuffer(cl_context, cl_mem_flags, size_t, void *, cl_int *);
cl_int clv__clReleaseMemObject(cl_mem);
cl_int clv__clRetainMemObject(cl_mem);
cl_mem clv__clCreateSubBuffer(cl_mem, cl_mem_flags, cl_buffer_create_type, const void *,
                              cl_int *);
cl_int clv__clGetMemObjectInfo(cl_mem, cl_mem_info, size_t, void *, size_t *);
cl_program clv__clCreateProgramWithSource(cl_context, cl_uint, const char **, const size_t *,
                                          cl_int *);
cl_program clv__clCreateProgramWithBinary(cl_context, cl_uint, const cl_device_id *,
                                          const size_t *, const unsigned char **, cl_int *,
                                          cl_int *);
cl_int clv__clBuildProgram(cl_program, cl_uint, const cl_device_id *, const char *,
                           void(CL_CALLBACK *)(cl_program, void *), void *);
cl_int clv__clGetProgramInfo(cl_program, cl_program_info, size_t, void *, size_t *);
cl_int clv__clGetProgramBuildInfo(cl_program, cl_device_id, cl_program_build_info, size_t,
                                  void *, size_t *);
cl_int clv__clReleaseProgram(cl_program);
cl_kernel clv__clCreateKernel(cl_program, const char *, cl_int *);
cl_int clv__clReleaseKernel(cl_kernel);
cl_int clv__clSetKernelArg(cl_kernel, cl_uint, size_t, const void *);
cl_int clv__clGetKernelInfo(cl_kernel, cl_kernel_info, size_t, void *, size_t *);
cl_int clv__clGetKernelWorkGroupInfo(cl_kernel, cl_device_id, cl_kernel_work_group_info, size_t,
                                     void *, size_t *);
cl_int clv__clEnqueueNDRangeKernel(cl_command_queue, cl_kernel, cl_uint, const size_t *,
                                   const size_t *, const size_t *, cl_uint, const cl_event *,
                                   cl_event *);
cl_int clv__clEnqueueReadBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *,
                                cl_uint, const cl_event *, cl_event *);
cl_int clv__clEnqueueWriteBuffer(cl_command_queue, cl_mem, cl_bool, size_t, size_t,
                                 const void *, cl_uint, const cl_event *, cl_event *);
cl_int clv__clEnqueueReadBufferRect(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                    const size_t *, const size_t *, size_t, size_t, size_t,
                                    size_t, void *, cl_uint, const cl_event *, cl_event *);
cl_int clv__clEnqueueWriteBufferRect(cl_command_queue, cl_mem, cl_bool, const size_t *,
                                     const size_t *, const size_t *, size_t, size_t, size_t,
                                     size_t, const void *, cl_uint, const cl_event *, cl_event *);
cl_int clv__clEnqueueFillBuffer(cl_command_queue, cl_mem, const void *, size_t, size_t, size_t,
                                cl_uint, const cl_event *, cl_event *);
cl_int clv__clEnqueueCopyBuffer(cl_command_queue, cl_mem, cl_mem, size_t, size_t, size_t,
                                cl_uint, const cl_event *, cl_event *);
cl_int clv__clEnqueueCopyBufferRect(cl_command_queue, cl_mem, cl_mem, const size_t *,
                                    const size_t *, const size_t *, size_t, size_t, size_t,
                                    size_t, cl_uint, const cl_event *, cl_event *);
void *clv__clEnqueueMapBuffer(cl_command_queue, cl_mem, cl_bool, cl_map_flags, size_t, size_t,
                              cl_uint, const cl_event *, cl_event *, cl_int *);
cl_int clv__clEnqueueUnmapMemObject(cl_command_queue, cl_mem, void *, cl_uint, const cl_event *,
                                    cl_event *);
cl_int clv__clEnqueueMarkerWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int clv__clEnqueueBarrierWithWaitList(cl_command_queue, cl_uint, const cl_event *, cl_event *);
cl_int clv__clGetEventInfo(cl_event, cl_event_info, size_t, void *, size_t *);
/* ev leaves clvision's live-object count: it is now the application's (it
 * releases it with its own clReleaseEvent). */
void clv__disown_event(cl_event ev);
cl_int clv__clFinish(cl_command_queue);
cl_int clv__clFlush(cl_command_queue);
cl_int clv__clWaitForEvents(cl_uint, const cl_event *);
cl_int clv__clGetEventProfilingInfo(cl_event, cl_profiling_info, size_t, void *, size_t *);
cl_int clv__clRetainEvent(cl_event);
cl_int clv__clReleaseEvent(cl_event);

/* Dry run on this thread (clv_op_supported): commands are not enqueued (see
 * clwrap.c). */
void clv__set_dry_run(int on);
int clv__dry_run(void);

/* Live objects of one cl_context, filled into clv_context_stats. */
void clv__live_objects_of(cl_context c, uint64_t *mem, uint64_t *kernels, uint64_t *programs,
                          uint64_t *events, uint64_t *queues);

#ifndef CLV_CLWRAP_IMPL
#define clGetPlatformIDs clv__clGetPlatformIDs
#define clGetPlatformInfo clv__clGetPlatformInfo
#define clGetDeviceIDs clv__clGetDeviceIDs
#define clGetDeviceInfo clv__clGetDeviceInfo
#define clCreateContext clv__clCreateContext
#define clReleaseContext clv__clReleaseContext
#define clRetainContext clv__clRetainContext
#define clGetContextInfo clv__clGetContextInfo
#define clRetainDevice clv__clRetainDevice
#define clReleaseDevice clv__clReleaseDevice
#define clCreateCommandQueue clv__clCreateCommandQueue
#define clReleaseCommandQueue clv__clReleaseCommandQueue
#define clRetainCommandQueue clv__clRetainCommandQueue
#define clGetCommandQueueInfo clv__clGetCommandQueueInfo
#define clCreateBuffer clv__clCreateBuffer
#define clReleaseMemObject clv__clReleaseMemObject
#define clRetainMemObject clv__clRetainMemObject
#define clCreateSubBuffer clv__clCreateSubBuffer
#define clGetMemObjectInfo clv__clGetMemObjectInfo
#define clCreateProgramWithSource clv__clCreateProgramWithSource
#define clCreateProgramWithBinary clv__clCreateProgramWithBinary
#define clBuildProgram clv__clBuildProgram
#define clGetProgramInfo clv__clGetProgramInfo
#define clGetProgramBuildInfo clv__clGetProgramBuildInfo
#define clReleaseProgram clv__clReleaseProgram
#define clCreateKernel clv__clCreateKernel
#define clReleaseKernel clv__clReleaseKernel
#define clSetKernelArg clv__clSetKernelArg
#define clGetKernelInfo clv__clGetKernelInfo
#define clGetKernelWorkGroupInfo clv__clGetKernelWorkGroupInfo
#define clEnqueueNDRangeKernel clv__clEnqueueNDRangeKernel
#define clEnqueueReadBuffer clv__clEnqueueReadBuffer
#define clEnqueueWriteBuffer clv__clEnqueueWriteBuffer
#define clEnqueueReadBufferRect clv__clEnqueueReadBufferRect
#define clEnqueueWriteBufferRect clv__clEnqueueWriteBufferRect
#define clEnqueueFillBuffer clv__clEnqueueFillBuffer
#define clEnqueueCopyBuffer clv__clEnqueueCopyBuffer
#define clEnqueueCopyBufferRect clv__clEnqueueCopyBufferRect
#define clEnqueueMapBuffer clv__clEnqueueMapBuffer
#define clEnqueueUnmapMemObject clv__clEnqueueUnmapMemObject
#define clEnqueueMarkerWithWaitList clv__clEnqueueMarkerWithWaitList
#define clEnqueueBarrierWithWaitList clv__clEnqueueBarrierWithWaitList
#define clGetEventInfo clv__clGetEventInfo
#define clFinish clv__clFinish
#define clFlush clv__clFlush
#define clWaitForEvents clv__clWaitForEvents
#define clGetEventProfilingInfo clv__clGetEventProfilingInfo
#define clRetainEvent clv__clRetainEvent
#define clReleaseEvent clv__clReleaseEvent
#endif

#endif
