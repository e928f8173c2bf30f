/* The D-Bus bindings side by side, for `scripts/bench bus`: in a fresh process, open the library
   with dlopen, connect to the session bus and own a name; prints the time, the RSS and the shared
   libraries it added. Argument: sdbus, libdbus or gdbus. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <dlfcn.h>
#include <systemd/sd-bus.h>
#include <dbus/dbus.h>
#include <gio/gio.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec*1e3+t.tv_nsec/1e6;}
static long rss(void){FILE*f=fopen("/proc/self/status","r");char l[256];long v=0;while(fgets(l,256,f))if(!strncmp(l,"VmRSS:",6))v=atol(l+6);fclose(f);return v;}
static int libs(void){FILE*f=fopen("/proc/self/maps","r");char l[512];int n=0;char last[512]="";while(fgets(l,512,f)){char*p=strchr(l,'/');if(p&&strstr(p,".so")&&strcmp(p,last)){n++;strcpy(last,p);}}fclose(f);return n;}
int main(int c,char**v){
  long r0=rss(); int l0=libs(); double t0=now(); const char*name="org.mpris.MediaPlayer2.bench";
  if(!strcmp(v[1],"sdbus")){
    void*h=dlopen("libsystemd.so.0",RTLD_NOW|RTLD_LOCAL);
    int(*open_user)(sd_bus**)=dlsym(h,"sd_bus_open_user");
    int(*req)(sd_bus*,const char*,uint64_t)=dlsym(h,"sd_bus_request_name");
    sd_bus*b; if(open_user(&b)<0||req(b,name,0)<0){puts("fail");return 1;}
  } else if(!strcmp(v[1],"libdbus")){
    void*h=dlopen("libdbus-1.so.3",RTLD_NOW|RTLD_LOCAL);
    DBusConnection*(*get)(DBusBusType,DBusError*)=dlsym(h,"dbus_bus_get_private");
    int(*req)(DBusConnection*,const char*,unsigned,DBusError*)=dlsym(h,"dbus_bus_request_name");
    void(*init)(DBusError*)=dlsym(h,"dbus_error_init");
    DBusError e; init(&e); DBusConnection*cn=get(DBUS_BUS_SESSION,&e); if(!cn||req(cn,name,4,&e)!=1){puts("fail");return 1;}
  } else {
    void*h=dlopen("libgio-2.0.so.0",RTLD_NOW|RTLD_LOCAL);
    GDBusConnection*(*get)(GBusType,GCancellable*,GError**)=dlsym(h,"g_bus_get_sync");
    GVariant*(*call)(GDBusConnection*,const gchar*,const gchar*,const gchar*,const gchar*,GVariant*,const GVariantType*,GDBusCallFlags,gint,GCancellable*,GError**)=dlsym(h,"g_dbus_connection_call_sync");
    void*gl=dlopen("libglib-2.0.so.0",RTLD_NOW|RTLD_LOCAL);
    GVariant*(*nv)(const gchar*,...)=dlsym(gl,"g_variant_new");
    GDBusConnection*cn=get(G_BUS_TYPE_SESSION,0,0); if(!cn||!call(cn,"org.freedesktop.DBus","/org/freedesktop/DBus","org.freedesktop.DBus","RequestName",nv("(su)",name,4),0,0,-1,0,0)){puts("fail");return 1;}
  }
  printf("%s %.2f ms +%ld KiB +%d libs\n",v[1],now()-t0,rss()-r0,libs()-l0);
  return 0;
}
